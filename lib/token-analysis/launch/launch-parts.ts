import type { Address } from '@solana/kit'
import type { LaunchFactsRepository } from '../../../db/contracts/launch-facts.js'
import type { AnalysisPart } from '../analysis-part.js'
import { decodeLaunchFacts, encodeLaunchFacts } from './launch-facts-codec.js'
import { createLaunchPart, readLaunchFacts, type LaunchFacts, type LaunchRpc } from './launch-part.js'
import { createHistoryMemo } from './mint-history.js'
import { createHolderClustersPart } from './holder-clusters.js'
import { createCreatorPart } from './creator-part.js'
import { createTransactionReader } from './transaction-reader.js'

/** Pages of 1,000 signatures the launch walks back at most: 5,000 transactions, 5 requests. */
export const LAUNCH_HISTORY_PAGES = 5

export interface LaunchPartsOptions {
  rpc: LaunchRpc
  maxPages?: number
  /** Where launch facts are kept per mint (the store); absent: read on every analysis. */
  store?: LaunchFactsRepository
  /** The data network, the facts' key beside the mint. */
  network: string
}

/**
 * The launch's facts from the store, else from the chain, then kept: a launch never changes once
 * read. A store that fails to answer only costs the chain reads.
 */
function keptFacts (read: (mint: Address, signal: AbortSignal) => Promise<LaunchFacts>, store: LaunchFactsRepository, network: string) {
  return async (mint: Address, signal: AbortSignal): Promise<LaunchFacts> => {
    const kept = await store.load(network, mint).catch(() => undefined)
    if (kept !== undefined) return decodeLaunchFacts(kept)
    const facts = await read(mint, signal)
    await store.save(network, mint, encodeLaunchFacts(facts)).catch(() => {})
    return facts
  }
}

/** One read per mint while it runs, for the parts of one analysis that share it (launch and clusters). */
function inFlight<T> (read: (mint: Address, signal: AbortSignal) => Promise<T>) {
  const reads = new Map<Address, Promise<T>>()
  return (mint: Address, signal: AbortSignal): Promise<T> => {
    let pending = reads.get(mint)
    if (pending === undefined) {
      pending = read(mint, signal)
      reads.set(mint, pending)
      const forget = () => { if (reads.get(mint) === pending) reads.delete(mint) }
      pending.then(forget, forget)
    }
    return pending
  }
}

/** The launch, holder clusters and creator parts, sharing one read of the mint's history and of each transaction. */
export function createLaunchParts ({ rpc, maxPages = LAUNCH_HISTORY_PAGES, store, network }: LaunchPartsOptions): AnalysisPart[] {
  const history = createHistoryMemo(rpc, maxPages)
  const transactions = createTransactionReader(rpc)
  const options = { rpc, history, maxPages, transactions }
  const fromChain = (mint: Address, signal: AbortSignal) => readLaunchFacts(options, mint, signal)
  const facts = inFlight(store === undefined ? fromChain : keptFacts(fromChain, store, network))
  const creator = async (mint: Address, signal: AbortSignal) => (await facts(mint, signal)).creator
  return [createLaunchPart({ ...options, facts }), createHolderClustersPart({ rpc, transactions, creator, store, network }), createCreatorPart({ rpc, transactions, launch: facts })]
}
