import type { Address } from '@solana/kit'
import type { PoolBody } from '../../../schemas/token-analysis-liquidity.js'
import { KNOWN_TOKENS } from '../../prices/known-tokens.js'
import { NETWORKS, type NetworkName } from '../../solana/networks.js'
import { shareOf } from '../holders.js'
import { POOL_PROGRAMS } from './pool-programs.js'
import type { PoolFacts } from './read-pools.js'

/** Quote tokens counted at one dollar. */
const USD_STABLE = new Set(['USDC', 'USDT', 'PYUSD'])

function quoteToken (mint: Address, network: NetworkName): { symbol: string, decimals: number } | undefined {
  if (mint === NETWORKS[network].usdcMint) return { symbol: 'USDC', decimals: 6 }
  return network === 'mainnet-beta' ? KNOWN_TOKENS.find(token => token.mint === mint) : undefined
}

/** The LP (or liquidity) of a pool, and what of it is burned and locked, when the pool's model tells. */
export interface LpAccounting {
  total: bigint
  burned: bigint | null
  locked: bigint
}

/**
 * What of a pool's liquidity is burned and locked. lp_token pools that record what they minted
 * (AMM v4, CPMM, PumpSwap) count the difference to the LP mint's supply as burned (an SPL Burn
 * lowers the supply, not the pool's record) plus the incinerator's LP; DAMM v1 counts its own lock
 * escrows (total_locked_lp) against the supply; DAMM v2 its permanently locked liquidity.
 */
export function lpAccounting (fact: PoolFacts): LpAccounting | string {
  const { pool, holdings, lpSupply } = fact
  const program = POOL_PROGRAMS[pool.program]
  if (pool.program === 'meteora_damm_v2') {
    if (pool.liquidity === undefined || pool.liquidity === 0n) return 'the pool has no liquidity'
    return { total: pool.liquidity, burned: null, locked: pool.permanentLiquidity ?? 0n }
  }
  if (program.lpModel !== 'lp_token') return `${program.dex} positions are accounts or NFTs of their own, not an LP token; their locks are not read`
  if (lpSupply === undefined) return 'the LP mint could not be read'
  if (holdings === undefined) return fact.holdersReason ?? 'the LP holders were not read'
  const total = pool.lpRecorded ?? lpSupply
  if (total === 0n) return 'the pool has no LP outstanding'
  const burnt = holdings.filter(holding => holding.locker === undefined).reduce((sum, holding) => sum + holding.amount, 0n)
  const locked = holdings.filter(holding => holding.locker !== undefined).reduce((sum, holding) => sum + holding.amount, 0n) + (pool.lockedLp ?? 0n)
  const burnedBySupply = pool.lpRecorded !== undefined && pool.lpRecorded > lpSupply ? pool.lpRecorded - lpSupply : 0n
  return { total, burned: burnedBySupply + burnt, locked }
}

function usd (amount: bigint, decimals: number, price: number): number {
  return Number(amount) / 10 ** decimals * price
}

/** One pool of the answer, the analysed mint as its base side. */
export function poolBody (fact: PoolFacts, mint: Address, decimals: number, usdPrice: number | null, network: NetworkName): PoolBody {
  const { pool } = fact
  const program = POOL_PROGRAMS[pool.program]
  const baseSide = pool.mints[0] === mint ? 0 : 1
  const quoteMint = pool.mints[1 - baseSide]
  const quote = quoteToken(quoteMint, network)
  const base = fact.reserves?.[baseSide]
  const quoteReserve = fact.reserves?.[1 - baseSide]
  let liquidityUsd: number | null = null
  if (base !== undefined && quoteReserve !== undefined && usdPrice !== null) {
    const baseUsd = usd(base, decimals, usdPrice)
    // A constant-product pool holds equal value on both sides; other shapes need the quote's price.
    if (quote !== undefined && USD_STABLE.has(quote.symbol)) liquidityUsd = baseUsd + usd(quoteReserve, quote.decimals, 1)
    else if (program.lpModel === 'lp_token') liquidityUsd = 2 * baseUsd
  }
  const accounting = lpAccounting(fact)
  const reasons: string[] = []
  if (fact.reserves === undefined) reasons.push(pool.program === 'meteora_damm_v1' ? 'DAMM v1 keeps its tokens in Meteora vaults, and a vault or its LP mint could not be read' : 'a vault could not be read')
  if (typeof accounting === 'string') reasons.push(accounting)
  return {
    address: pool.address,
    program: program.id,
    dex: program.dex,
    base_mint: mint,
    quote_mint: quoteMint,
    base_reserve: base?.toString() ?? null,
    quote_reserve: quoteReserve?.toString() ?? null,
    quote_symbol: quote?.symbol ?? null,
    liquidity_usd: liquidityUsd === null ? null : Math.round(liquidityUsd * 100) / 100,
    lp_model: program.lpModel,
    lp_mint: pool.lpMint ?? null,
    lp_supply: fact.lpSupply?.toString() ?? null,
    lp_burned_share: typeof accounting === 'string' || accounting.burned === null ? null : shareOf(accounting.burned, accounting.total),
    lp_locked_share: typeof accounting === 'string' ? null : shareOf(accounting.locked, accounting.total),
    locks: (fact.holdings ?? []).flatMap(holding => holding.locker === undefined ? [] : [{ program: holding.locker, account: holding.account, amount: holding.amount.toString(), unlock_at: null }]),
    evidence: [...new Set(fact.evidence)],
    ...(reasons.length === 0 ? {} : { reason: `${reasons.join('; ')}.` })
  }
}
