// getProgramAccounts as agave serves it: filters dataSize / memcmp (base58 or base64 bytes) /
// tokenAccountState, ANDed; encoding, dataSlice, withContext; results sorted by pubkey (agave's
// sortResults default). LiteSVM lists accounts by owner itself, so every account the chain holds
// (written through setAccount, an account dir, or by a transaction) is searched.
import { decodeBase58 } from '../encoding/base58.js'
import { encodeAccount } from '../encoding/account.js'
import { isTokenAccountData, isTokenProgram } from '../encoding/token-layout.js'
import { invalidParams } from '../rpc-errors.js'
import type { EngineAccount } from '../svm.js'
import { withContext, type MethodHandler } from './context.js'
import { checkReadConfig, parseAccountEncoding, parseAddress, parseConfig, parseDataSlice, parseUsize, required, type Config } from './params.js'

// agave rpc-client-api filter.rs / rpc.rs
const MAX_FILTERS = 4
const MAX_DATA_SIZE = 128
const MAX_DATA_BASE58_SIZE = 175
const MAX_DATA_BASE64_SIZE = 172

type AccountFilter = (account: EngineAccount) => boolean

function memcmpBytes (bytes: unknown, encoding: unknown): Uint8Array {
  if (typeof bytes !== 'string') throw invalidParams('Invalid params: memcmp `bytes` must be a string.')
  if (encoding === undefined || encoding === null || encoding === 'base58') {
    if (bytes.length > MAX_DATA_BASE58_SIZE) throw invalidParams('Invalid param: DataTooLarge')
    let decoded: Uint8Array
    try {
      decoded = decodeBase58(bytes)
    } catch {
      throw invalidParams('Invalid param: Base58DecodeError(InvalidCharacter)')
    }
    if (decoded.length > MAX_DATA_SIZE) throw invalidParams('Invalid param: DataTooLarge')
    return decoded
  }
  if (encoding === 'base64') {
    if (bytes.length > MAX_DATA_BASE64_SIZE) throw invalidParams('Invalid param: DataTooLarge')
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(bytes)) {
      throw invalidParams('Invalid param: Base64DecodeError(InvalidByte)')
    }
    const decoded = Uint8Array.from(Buffer.from(bytes, 'base64'))
    if (decoded.length > MAX_DATA_SIZE) throw invalidParams('Invalid param: DataTooLarge')
    return decoded
  }
  throw invalidParams(`Invalid params: unknown variant \`${String(encoding)}\`, expected \`base58\` or \`base64\`.`)
}

/** agave's Memcmp::bytes_match: the bytes must fit inside the data at the offset. */
function matchesAt (data: Uint8Array, offset: number, bytes: Uint8Array): boolean {
  if (offset > data.length || data.length - offset < bytes.length) return false
  for (let i = 0; i < bytes.length; i++) if (data[offset + i] !== bytes[i]) return false
  return true
}

function parseFilter (value: unknown): AccountFilter {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParams('Invalid params: invalid type: expected a filter object.')
  }
  const filter = value as Record<string, unknown>
  const kinds = Object.keys(filter)
  if (kinds.length !== 1) throw invalidParams('Invalid params: a filter has exactly one of `dataSize`, `memcmp`, `tokenAccountState`.')
  if ('dataSize' in filter) {
    const size = parseUsize(filter.dataSize, 'dataSize')
    return (account) => account.data.length === size
  }
  if ('memcmp' in filter) {
    const memcmp = parseConfig(filter.memcmp)
    const offset = parseUsize(memcmp.offset, 'memcmp offset')
    const bytes = memcmpBytes(memcmp.bytes, memcmp.encoding)
    return (account) => matchesAt(account.data, offset, bytes)
  }
  if ('tokenAccountState' in filter) {
    return (account) => isTokenProgram(account.owner) && isTokenAccountData(account.data) && account.data[108] !== 0
  }
  throw invalidParams(`Invalid params: unknown variant \`${kinds[0]}\`, expected one of \`dataSize\`, \`memcmp\`, \`tokenAccountState\`.`)
}

function parseFilters (config: Config): AccountFilter[] {
  const filters = config.filters
  if (filters === undefined || filters === null) return []
  if (!Array.isArray(filters)) throw invalidParams('Invalid params: invalid type: expected a sequence of filters.')
  if (filters.length > MAX_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_FILTERS}`)
  return filters.map(parseFilter)
}

function compareKeys (a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return a.length - b.length
}

export const programAccountMethods: Record<string, MethodHandler> = {
  getProgramAccounts: (params, { chain }) => {
    const programId = parseAddress(required(params, 0, '1 or 2 parameters'))
    const config = parseConfig(params[1])
    checkReadConfig(config, chain.slot)
    const encoding = parseAccountEncoding(config, 'binary')
    const dataSlice = parseDataSlice(config)
    const filters = parseFilters(config)
    if (config.withContext !== undefined && config.withContext !== null && typeof config.withContext !== 'boolean') {
      throw invalidParams('Invalid params: invalid type: withContext must be a boolean.')
    }
    const read = (key: string) => chain.getAccount(key)
    const found = chain.engine
      .getProgramAccounts(programId)
      .filter(({ account }) => filters.every((matches) => matches(account)))
      .map((entry) => ({ ...entry, key: decodeBase58(entry.address) }))
      .sort((a, b) => compareKeys(a.key, b.key))
      .map(({ address, account }) => ({ account: encodeAccount(account, encoding, read, dataSlice), pubkey: address }))
    return config.withContext === true ? withContext(chain, found) : found
  },
}
