import type { Address, Base58EncodedBytes, Base64EncodedBytes, GetProgramAccountsApi, Rpc } from '@solana/kit'
import { boundedCache } from '../../http/bounded-memo.js'
import { POOL_LAYOUTS, type PoolLayout } from './pool-decoders.js'
import { POOL_PROGRAMS } from './pool-programs.js'

/** How long a mint's list of pools is reused: pools are created rarely; reserves are always read fresh. */
export const POOL_LIST_TTL_MS = 2 * 60 * 1000
const MAX_LISTED_MINTS = 1000
/** Pools read per analysis at most (one getMultipleAccounts); a mint in more is named with the bound. */
export const MAX_POOLS = 20

export interface PoolList {
  addresses: Address[]
  /** Program searches the node refused (dex name and side). */
  unsearched: string[]
  /** Pools found beyond MAX_POOLS, not read. */
  dropped: number
}

/**
 * The search of one program and side: a node-side filter on the size (or, for programs whose pools
 * come in several sizes, the discriminator) and the mint at the side's offset, returning addresses
 * only (a data slice of 0 bytes): the pools themselves are read fresh afterwards, with their vaults.
 */
export function searchFilters (layout: PoolLayout, side: 0 | 1, mint: Address) {
  const shape = layout.sizes.length === 1 || layout.discriminator === undefined
    ? { dataSize: BigInt(layout.sizes[0]) }
    : { memcmp: { offset: 0n, bytes: layout.discriminator.toString('base64') as Base64EncodedBytes, encoding: 'base64' as const } }
  return [shape, { memcmp: { offset: BigInt(layout.mintOffsets[side]), bytes: mint as string as Base58EncodedBytes, encoding: 'base58' as const } }]
}

async function search (rpc: Rpc<GetProgramAccountsApi>, layout: PoolLayout, side: 0 | 1, mint: Address, signal: AbortSignal): Promise<Address[]> {
  const found = await rpc.getProgramAccounts(POOL_PROGRAMS[layout.program].id, {
    encoding: 'base64',
    commitment: 'confirmed',
    dataSlice: { offset: 0, length: 0 },
    filters: searchFilters(layout, side, mint)
  }).send({ abortSignal: signal })
  return found.map(entry => entry.pubkey)
}

/**
 * Every pool of `mint` the programs list, one getProgramAccounts per program and side, side by
 * side. A search the node refuses (many public nodes refuse the busiest programs, the local chain
 * does not serve the method) is named in `unsearched`; the budget's abort is not a refusal.
 */
export function createPoolFinder (rpc: Rpc<GetProgramAccountsApi>, now: () => number = Date.now) {
  const lists = boundedCache<{ expiresAt: number, list: PoolList }>(MAX_LISTED_MINTS)

  async function findPools (mint: Address, signal: AbortSignal): Promise<PoolList> {
    const kept = lists.get(mint)
    if (kept !== undefined && kept.expiresAt > now()) return kept.list
    const searches = POOL_LAYOUTS.flatMap(layout => ([0, 1] as const).map(async side => {
      try {
        return { found: await search(rpc, layout, side, mint, signal) }
      } catch (error) {
        if (signal.aborted) throw error
        return { unsearched: `${POOL_PROGRAMS[layout.program].dex} (${side === 0 ? 'first' : 'second'} mint)` }
      }
    }))
    const answers = await Promise.all(searches)
    const all = [...new Set(answers.flatMap(answer => answer.found ?? []))]
    const list: PoolList = {
      addresses: all.slice(0, MAX_POOLS),
      unsearched: answers.flatMap(answer => answer.unsearched === undefined ? [] : [answer.unsearched]),
      dropped: Math.max(0, all.length - MAX_POOLS)
    }
    lists.set(mint, { expiresAt: now() + POOL_LIST_TTL_MS, list })
    return list
  }

  return { findPools }
}
