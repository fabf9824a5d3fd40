import { createHash } from 'node:crypto'
import { getAddressDecoder, type Address } from '@solana/kit'
import { getWhirlpoolDecoder } from '@orca-so/whirlpools-client'
import { POOL_PROGRAMS, type PoolProgramName } from './pool-programs.js'

/**
 * Small readers of the pool layouts (offsets from the programs' sources, docs/token-analysis.md),
 * each checking the owner program, the size and the Anchor discriminator before reading: Anchor
 * discriminators repeat across programs (DAMM v1, DAMM v2 and PumpSwap share one), so no one
 * check is enough. Orca's pool goes through Orca's own kit client.
 */
export interface DecodedPool {
  address: Address
  program: PoolProgramName
  mints: [Address, Address]
  /** Token accounts holding each side (DAMM v1: the pool's vault-LP accounts). */
  vaults: [Address, Address]
  /** Amounts in the vaults that are fees owed, not liquidity. */
  pending: [bigint, bigint]
  lpMint?: Address
  /** The LP the pool itself records as outstanding (AMM v4 lp_reserve, CPMM and PumpSwap lp_supply). */
  lpRecorded?: bigint
  /** DAMM v1: LP locked in the pool's lock escrows. */
  lockedLp?: bigint
  /** DAMM v1: Meteora's vaults (a_vault, b_vault) that hold its tokens. */
  meteoraVaults?: [Address, Address]
  /** Concentrated pools: the active liquidity, and what of it is locked for ever (DAMM v2). */
  liquidity?: bigint
  permanentLiquidity?: bigint
}

export interface PoolLayout {
  program: PoolProgramName
  /** Sizes the program's pool accounts have; GPA filters on dataSize when there is one. */
  sizes: readonly number[]
  discriminator?: Buffer
  mintOffsets: readonly [number, number]
  decode: (address: Address, data: Buffer) => DecodedPool
}

const anchor = (name: string) => createHash('sha256').update(`account:${name}`).digest().subarray(0, 8)
const addressDecoder = getAddressDecoder()
const key = (data: Buffer, offset: number) => addressDecoder.decode(data.subarray(offset, offset + 32))
const u64 = (data: Buffer, offset: number) => data.readBigUInt64LE(offset)
const u128 = (data: Buffer, offset: number) => data.readBigUInt64LE(offset) + (data.readBigUInt64LE(offset + 8) << 64n)

const pair = (data: Buffer, a: number, b: number): [Address, Address] => [key(data, a), key(data, b)]

export const POOL_LAYOUTS: readonly PoolLayout[] = [
  {
    program: 'raydium_amm_v4',
    sizes: [752],
    mintOffsets: [400, 432],
    decode: (address, data) => ({
      address,
      program: 'raydium_amm_v4',
      mints: pair(data, 400, 432),
      vaults: pair(data, 336, 368),
      // PnL the pool owes its owner stays in the vaults until taken.
      pending: [u64(data, 192), u64(data, 200)],
      lpMint: key(data, 464),
      lpRecorded: u64(data, 720)
    })
  },
  {
    program: 'raydium_cpmm',
    sizes: [637],
    discriminator: anchor('PoolState'),
    mintOffsets: [168, 200],
    decode: (address, data) => ({
      address,
      program: 'raydium_cpmm',
      mints: pair(data, 168, 200),
      vaults: pair(data, 72, 104),
      pending: [u64(data, 341) + u64(data, 357), u64(data, 349) + u64(data, 365)],
      lpMint: key(data, 136),
      lpRecorded: u64(data, 333)
    })
  },
  {
    program: 'raydium_clmm',
    sizes: [1544],
    discriminator: anchor('PoolState'),
    mintOffsets: [73, 105],
    decode: (address, data) => ({ address, program: 'raydium_clmm', mints: pair(data, 73, 105), vaults: pair(data, 137, 169), pending: [0n, 0n], liquidity: u128(data, 237) })
  },
  {
    program: 'orca_whirlpool',
    sizes: [653],
    discriminator: anchor('Whirlpool'),
    mintOffsets: [101, 181],
    decode: (address, data) => {
      const pool = getWhirlpoolDecoder().decode(data)
      return {
        address,
        program: 'orca_whirlpool',
        mints: [pool.tokenMintA, pool.tokenMintB],
        vaults: [pool.tokenVaultA, pool.tokenVaultB],
        pending: [pool.protocolFeeOwedA, pool.protocolFeeOwedB],
        liquidity: pool.liquidity
      }
    }
  },
  {
    program: 'meteora_dlmm',
    sizes: [904],
    discriminator: anchor('LbPair'),
    mintOffsets: [88, 120],
    decode: (address, data) => ({ address, program: 'meteora_dlmm', mints: pair(data, 88, 120), vaults: pair(data, 152, 184), pending: [0n, 0n] })
  },
  {
    program: 'meteora_damm_v1',
    sizes: [944, 1387],
    discriminator: anchor('Pool'),
    mintOffsets: [40, 72],
    decode: (address, data) => ({
      address,
      program: 'meteora_damm_v1',
      mints: pair(data, 40, 72),
      // a_vault_lp, b_vault_lp: the pool's shares of Meteora's vaults, not the tokens themselves.
      vaults: pair(data, 168, 200),
      pending: [0n, 0n],
      lpMint: key(data, 8),
      lockedLp: u64(data, 395),
      meteoraVaults: pair(data, 104, 136)
    })
  },
  {
    program: 'meteora_damm_v2',
    sizes: [1112],
    discriminator: anchor('Pool'),
    mintOffsets: [168, 200],
    decode: (address, data) => ({
      address,
      program: 'meteora_damm_v2',
      mints: pair(data, 168, 200),
      vaults: pair(data, 232, 264),
      pending: [0n, 0n],
      liquidity: u128(data, 360),
      permanentLiquidity: u128(data, 552)
    })
  },
  {
    program: 'pumpswap',
    sizes: [211, 243, 300],
    discriminator: anchor('Pool'),
    mintOffsets: [43, 75],
    decode: (address, data) => ({
      address,
      program: 'pumpswap',
      mints: pair(data, 43, 75),
      vaults: pair(data, 139, 171),
      pending: [0n, 0n],
      lpMint: key(data, 107),
      lpRecorded: u64(data, 203)
    })
  }
]

const BY_OWNER = new Map<string, PoolLayout>(POOL_LAYOUTS.map(layout => [POOL_PROGRAMS[layout.program].id, layout]))

/** The pool at `address` if `owner`'s layout accepts the bytes (size and discriminator), else null. */
export function decodePool (address: Address, owner: string, data: Buffer): DecodedPool | null {
  const layout = BY_OWNER.get(owner)
  if (layout === undefined || !layout.sizes.includes(data.length)) return null
  if (layout.discriminator !== undefined && !data.subarray(0, 8).equals(layout.discriminator)) return null
  try {
    return layout.decode(address, data)
  } catch {
    return null
  }
}
