import { address, type Address } from '@solana/kit'

/**
 * The one table of the pool programs the liquidity part searches and of the lockers it recognises,
 * with where each id and layout is published (docs/token-analysis.md repeats it; a test checks
 * the two agree). Offsets live beside each decoder (pool-decoders.ts).
 */
export type LpModel = 'lp_token' | 'concentrated' | 'bin'

export interface PoolProgram {
  id: Address
  dex: string
  lpModel: LpModel
  source: string
}

export const POOL_PROGRAMS = {
  raydium_amm_v4: { id: address('675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8'), dex: 'Raydium AMM v4', lpModel: 'lp_token', source: 'https://github.com/raydium-io/raydium-amm/blob/master/program/src/state.rs' },
  raydium_cpmm: { id: address('CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C'), dex: 'Raydium CPMM', lpModel: 'lp_token', source: 'https://github.com/raydium-io/raydium-cp-swap/blob/master/programs/cp-swap/src/states/pool.rs' },
  raydium_clmm: { id: address('CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK'), dex: 'Raydium CLMM', lpModel: 'concentrated', source: 'https://github.com/raydium-io/raydium-clmm/blob/master/programs/amm/src/states/pool.rs' },
  orca_whirlpool: { id: address('whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc'), dex: 'Orca Whirlpool', lpModel: 'concentrated', source: 'https://www.npmjs.com/package/@orca-so/whirlpools-client' },
  meteora_dlmm: { id: address('LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo'), dex: 'Meteora DLMM', lpModel: 'bin', source: 'https://github.com/MeteoraAg/dlmm-sdk/blob/main/idls/dlmm.json' },
  meteora_damm_v1: { id: address('Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB'), dex: 'Meteora DAMM v1', lpModel: 'lp_token', source: 'https://github.com/MeteoraAg/dynamic-amm-sdk/blob/main/programs/dynamic-amm/src/state.rs' },
  meteora_damm_v2: { id: address('cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG'), dex: 'Meteora DAMM v2', lpModel: 'concentrated', source: 'https://github.com/MeteoraAg/damm-v2/blob/main/programs/cp-amm/src/state/pool.rs' },
  pumpswap: { id: address('pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA'), dex: 'PumpSwap', lpModel: 'lp_token', source: 'https://github.com/pump-fun/pump-public-docs/blob/main/idl/pump_amm.json' }
} as const satisfies Record<string, PoolProgram>

export type PoolProgramName = keyof typeof POOL_PROGRAMS

/** Where LP held by these counts as burned: nobody holds the incinerator's key. */
export const INCINERATOR = address('1nc1nerator11111111111111111111111111111111')

export interface Locker {
  name: string
  /** The locker program: an LP token account whose authority is an account of this program is locked. */
  program: Address
  /** Authorities (program-derived) that hold locked LP directly, when the locker publishes one. */
  authorities: readonly Address[]
  source: string
}

export const LOCKERS: readonly Locker[] = [
  { name: 'Raydium LP lock (Burn & Earn)', program: address('LockrWmn6K5twhz3y9w1dQERbmgSaRkfnTeTKbpofwE'), authorities: [address('3f7GcQFG397GAaEnv51zR6tsTVihYRydnydDD1cXekxH'), address('kN1kEznaF5Xbd8LYuqtEFcxzWSBk5Fv6ygX6SqEGJVy')], source: 'https://github.com/raydium-io/raydium-sdk-V2/blob/master/src/common/programId.ts' },
  { name: 'Streamflow', program: address('strmRqUCoQUgGUan5YhzUZa6KqdzwX5L6FpUxfmKg5m'), authorities: [], source: 'https://github.com/streamflow-finance/js-sdk/blob/master/packages/stream/solana/constants.ts' },
  { name: 'UNCX Raydium AMM locker', program: address('GsSCS3vPWrtJ5Y9aEVVT65fmrex5P5RGHXdZvsdbWgfo'), authorities: [], source: 'https://github.com/uncx-network/raydium-amm-lp-locker' },
  // Meteora's lock escrows are accounts of DAMM v1 itself; their LP is also counted in the pool's
  // total_locked_lp, which the part reads instead for DAMM v1 pools.
  { name: 'Meteora lock escrow', program: POOL_PROGRAMS.meteora_damm_v1.id, authorities: [], source: 'https://github.com/MeteoraAg/dynamic-amm-sdk/blob/main/programs/dynamic-amm/src/state.rs' }
]
