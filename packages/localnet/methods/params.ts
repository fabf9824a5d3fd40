// Parameter parsing with the error texts a node uses (-32602 "Invalid param: WrongSize", ...).
import { decodeBase58 } from '../encoding/base58.js'
import { RpcError, invalidParams, MIN_CONTEXT_SLOT_NOT_REACHED } from '../rpc-errors.js'
import { ACCOUNT_ENCODINGS, type AccountEncoding, type DataSlice } from '../encoding/account.js'

const COMMITMENTS = ['processed', 'confirmed', 'finalized']

export type Config = Record<string, unknown>

export function paramsArray (params: unknown): unknown[] {
  if (params === undefined || params === null) return []
  if (!Array.isArray(params)) throw invalidParams('Invalid params: invalid type: map, expected a sequence')
  return params
}

export function required (params: unknown[], index: number, what: string): unknown {
  if (params.length <= index || params[index] === undefined) {
    throw invalidParams(`Invalid params: invalid length ${params.length}, expected ${what}.`)
  }
  return params[index]
}

function decodeBase58Key (value: unknown, size: number): string {
  if (typeof value !== 'string') throw invalidParams('Invalid params: invalid type: expected a base58 string.')
  let bytes: Uint8Array
  try {
    bytes = Uint8Array.from(decodeBase58(value))
  } catch {
    throw invalidParams('Invalid param: Invalid')
  }
  if (bytes.length !== size) throw invalidParams('Invalid param: WrongSize')
  return value
}

export function parseAddress (value: unknown): string {
  return decodeBase58Key(value, 32)
}

export function parseSignature (value: unknown): string {
  return decodeBase58Key(value, 64)
}

export function parseConfig (value: unknown): Config {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams('Invalid params: invalid type: expected a config object.')
  return value as Config
}

/** Accepts the commitment names; with atLeastConfirmed, "processed" is refused like agave's check_is_at_least_confirmed. */
export function checkCommitment (config: Config, atLeastConfirmed = false): void {
  const commitment = config.commitment
  if (commitment === undefined || commitment === null) return
  if (typeof commitment !== 'string' || !COMMITMENTS.includes(commitment)) {
    throw invalidParams(`Invalid params: unknown variant \`${String(commitment)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`)
  }
  if (atLeastConfirmed && commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`')
}

export function checkMinContextSlot (config: Config, slot: number): void {
  const min = config.minContextSlot
  if (typeof min === 'number' && min > slot) {
    throw new RpcError(MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot: slot })
  }
}

/** commitment + minContextSlot, the common config of read methods */
export function checkReadConfig (config: Config, slot: number): void {
  checkCommitment(config)
  checkMinContextSlot(config, slot)
}

export function parseAccountEncoding (config: Config, fallback: AccountEncoding): AccountEncoding {
  const encoding = config.encoding ?? fallback
  if (typeof encoding !== 'string' || !ACCOUNT_ENCODINGS.includes(encoding as AccountEncoding)) {
    throw invalidParams(`Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`)
  }
  return encoding as AccountEncoding
}

export function parseDataSlice (config: Config): DataSlice | undefined {
  const slice = config.dataSlice
  if (slice === undefined || slice === null) return undefined
  const { offset, length } = slice as { offset?: unknown; length?: unknown }
  if (!Number.isInteger(offset) || !Number.isInteger(length) || (offset as number) < 0 || (length as number) < 0) {
    throw invalidParams('Invalid params: dataSlice must have non-negative integer offset and length.')
  }
  return { offset: offset as number, length: length as number }
}

export function parseU64 (value: unknown, name: string): bigint {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return BigInt(value)
  if (typeof value === 'bigint' && value >= 0n) return value
  throw invalidParams(`Invalid params: ${name} must be an unsigned integer.`)
}

export function parseUsize (value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value
  throw invalidParams(`Invalid params: ${name} must be an unsigned integer.`)
}
