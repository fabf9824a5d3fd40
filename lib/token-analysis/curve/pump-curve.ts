import { createHash } from 'node:crypto'
import { address, getAddressEncoder, getProgramDerivedAddress, type Address } from '@solana/kit'
import { POOL_PROGRAMS } from '../pools/pool-programs.js'

/**
 * pump.fun's bonding curve: where its accounts are and a small reader of their documented layout
 * (pump.fun's IDL, https://github.com/pump-fun/pump-public-docs/blob/main/idl/pump.json).
 * Offsets include the 8-byte Anchor discriminator.
 */
export const PUMP_PROGRAM = address('6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P')
export const WRAPPED_SOL = address('So11111111111111111111111111111111111111112')
export const PUMP_SOURCE = 'https://github.com/pump-fun/pump-public-docs/blob/main/idl/pump.json'

const anchor = (name: string) => createHash('sha256').update(`account:${name}`).digest().subarray(0, 8)
const CURVE_DISCRIMINATOR = anchor('BondingCurve')
const GLOBAL_DISCRIMINATOR = anchor('Global')
/**
 * The fields read end at byte 49 (`complete`): the first layout was exactly that long, later ones
 * append the creator and more (150 and 151 B seen on mainnet), so any size from 49 up is read and
 * anything shorter is not a curve.
 */
export const CURVE_MIN_SIZE = 49
/** Global reads up to initial_real_token_reserves (u64 at 89). */
export const GLOBAL_MIN_SIZE = 97

const keys = getAddressEncoder()
const text = (value: string) => new TextEncoder().encode(value)

/** PDA["bonding-curve", mint] of pump.fun. */
export async function curveAddress (mint: Address): Promise<Address> {
  return (await getProgramDerivedAddress({ programAddress: PUMP_PROGRAM, seeds: [text('bonding-curve'), keys.encode(mint)] }))[0]
}

/** PDA["global"] of pump.fun: the launch parameters every new curve starts from. */
export async function globalAddress (): Promise<Address> {
  return (await getProgramDerivedAddress({ programAddress: PUMP_PROGRAM, seeds: [text('global')] }))[0]
}

/**
 * The canonical PumpSwap pool a completed curve migrates to: PDA_pAMM["pool", index u16 0,
 * creator, base mint, wrapped SOL], the creator being pump.fun's PDA["pool-authority", mint]
 * (checked on the mainnet pool GUXAutvX…).
 */
export async function graduatedPoolAddress (mint: Address): Promise<Address> {
  const [authority] = await getProgramDerivedAddress({ programAddress: PUMP_PROGRAM, seeds: [text('pool-authority'), keys.encode(mint)] })
  const [pool] = await getProgramDerivedAddress({
    programAddress: POOL_PROGRAMS.pumpswap.id,
    seeds: [text('pool'), new Uint8Array([0, 0]), keys.encode(authority), keys.encode(mint), keys.encode(WRAPPED_SOL)]
  })
  return pool
}

export interface CurveState {
  virtualTokenReserves: bigint
  virtualSolReserves: bigint
  realTokenReserves: bigint
  realSolReserves: bigint
  tokenTotalSupply: bigint
  complete: boolean
}

interface RawAccount { owner: Address, data: Uint8Array }

const hasPrefix = (data: Uint8Array, prefix: Buffer) => prefix.every((byte, index) => data[index] === byte)

/** A BondingCurve account, or null when owner, size or discriminator say it is not one. */
export function decodeCurve (account: RawAccount): CurveState | null {
  const { owner, data } = account
  if (owner !== PUMP_PROGRAM || data.length < CURVE_MIN_SIZE || !hasPrefix(data, CURVE_DISCRIMINATOR)) return null
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const complete = view[48]
  if (complete > 1) return null
  return {
    virtualTokenReserves: view.readBigUInt64LE(8),
    virtualSolReserves: view.readBigUInt64LE(16),
    realTokenReserves: view.readBigUInt64LE(24),
    realSolReserves: view.readBigUInt64LE(32),
    tokenTotalSupply: view.readBigUInt64LE(40),
    complete: complete === 1
  }
}

/** Global's initial_real_token_reserves (u64 at 89), or null when the account is not pump.fun's Global. */
export function decodeInitialRealTokens (account: RawAccount): bigint | null {
  const { owner, data } = account
  if (owner !== PUMP_PROGRAM || data.length < GLOBAL_MIN_SIZE || !hasPrefix(data, GLOBAL_DISCRIMINATOR)) return null
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(89)
}
