import { isAddress, type Address, type GetProgramAccountsApi, type Rpc } from '@solana/kit'
import type { LiquidityBody } from '../../../schemas/token-analysis-liquidity.js'
import type { NetworkName } from '../../solana/networks.js'
import type { AnalysisPart, PartInput, PartOutcome } from '../analysis-part.js'
import { isAtLeast, percentOf } from '../holders.js'
import type { Finding } from '../risk-weights.js'
import { createPoolFinder, MAX_POOLS } from './discover-pools.js'
import { LIQUIDITY_THRESHOLDS } from './liquidity-rules.js'
import { lpAccounting, poolBody } from './pool-body.js'
import { POOL_PROGRAMS } from './pool-programs.js'
import { readPools, type PoolFacts, type PoolReadRpc } from './read-pools.js'

export type LiquidityRpc = PoolReadRpc & Rpc<GetProgramAccountsApi>

export interface LiquidityPartOptions {
  rpc: LiquidityRpc
  network: NetworkName
  /** The clock of the pool-list cache. */
  now?: () => number
}

const SEARCHES = Object.keys(POOL_PROGRAMS).length * 2
const PROGRAM_NAMES = Object.values(POOL_PROGRAMS).map(program => program.dex).join(', ')

function unavailableLiquidity (reason: string): PartOutcome {
  return { fields: { liquidity: { available: false, reason, pools: [] } }, findings: [], checks: [{ check: 'liquidity', source: 'chain', status: 'unavailable', reason }] }
}

/** The pool the market data names (Jupiter's firstPool.id), to read when the node will not search. */
async function marketPools (input: PartInput): Promise<Address[]> {
  const market = await input.market
  const id = market.state === 'listed' ? market.record.firstPool?.id : undefined
  return id !== undefined && isAddress(id) ? [id] : []
}

/** LP_UNLOCKED for the pool with the largest reserve of the token, when its LP or liquidity accounting is known. */
function unlockedFinding (largest: PoolFacts | undefined): Finding[] {
  if (largest === undefined) return []
  const accounting = lpAccounting(largest)
  if (typeof accounting === 'string') return []
  const unlocked = accounting.total - (accounting.burned ?? 0n) - accounting.locked
  if (unlocked <= 0n || !isAtLeast(unlocked, accounting.total, LIQUIDITY_THRESHOLDS.lpUnlockedBasisPoints)) return []
  return [{ code: 'LP_UNLOCKED', params: { percent: percentOf(unlocked, accounting.total), pool: largest.pool.address, dex: POOL_PROGRAMS[largest.pool.program].dex } }]
}

/**
 * `liquidity`: the token's pools on the programs of pool-programs.ts, found with getProgramAccounts
 * (the list reused for a short while) or, where the node refuses, the pool the market data names;
 * each read fresh with its vaults, LP mint and LP holders, under the parts' budget.
 */
export function createLiquidityPart ({ rpc, network, now }: LiquidityPartOptions): AnalysisPart {
  const finder = createPoolFinder(rpc, now)
  return {
    name: 'liquidity',
    async read (input: PartInput): Promise<PartOutcome> {
      const [list, named] = await Promise.all([finder.findPools(input.mint, input.signal), marketPools(input)])
      const candidates = [...new Set([...list.addresses, ...named])].slice(0, MAX_POOLS + named.length)
      const notes: string[] = []
      if (list.unsearched.length > 0) notes.push(`The data RPC refused getProgramAccounts for ${list.unsearched.length === SEARCHES ? 'every program' : list.unsearched.join(', ')}, so ${list.unsearched.length === SEARCHES ? 'only the pool the market data names was read' : 'those pools are not listed'}.`)
      if (list.dropped > 0) notes.push(`${list.dropped} more pools were found and not read (at most ${MAX_POOLS} are).`)
      if (candidates.length === 0 && list.unsearched.length === SEARCHES) return unavailableLiquidity('The data RPC refused getProgramAccounts for every program and the market data names no pool: the token\'s pools could not be searched.')
      const { facts, slot } = candidates.length === 0 ? { facts: [], slot: undefined } : await readPools(rpc, input.mint, candidates, input.signal)
      const price = await input.market.then(market => market.state === 'listed' ? market.record.usdPrice ?? null : null)
      const liquidity: LiquidityBody = {
        available: true,
        ...(notes.length === 0 ? {} : { reason: notes.join(' ') }),
        slot: Number(slot ?? input.slot),
        pools: facts.map(fact => poolBody(fact, input.mint, input.decimals, price, network))
      }
      const findings: Finding[] = facts.length === 0 && list.unsearched.length === 0
        ? [{ code: 'NO_POOL', params: { programs: PROGRAM_NAMES } }]
        : unlockedFinding(facts.find(fact => fact.reserves !== undefined))
      return { fields: { liquidity }, findings, checks: [{ check: 'liquidity', source: 'chain', status: 'passed', slot: liquidity.slot, ...(liquidity.reason === undefined ? {} : { reason: liquidity.reason }) }] }
    },
    unavailable: reason => unavailableLiquidity(reason)
  }
}
