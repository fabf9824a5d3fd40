import type { PayerFailureLog } from '../../db/contracts/payer-failures.js'

// Clients are forgotten once their window is over; the sweep runs when the table gets this big.
const SWEEP_AT = 10_000
/** The most failures one sync reads from the store: a window's worth on any real deployment. */
const SYNC_LIMIT = 10_000

export interface PayerFailureBudgetOptions {
  /** Failed settlements a wallet may cause per window; 0 turns the budget off. */
  limit: number
  windowMs: number
  /** Called once when a wallet uses up its budget (a warning for operators). */
  onBlocked?: (payer: string, failures: number) => void
  /** The store's log: failures survive a restart and count on every instance sharing it. Without it, this process's memory only. */
  log?: PayerFailureLog
  /** A failure the store did not take (the count stays in memory meanwhile). */
  onLogError?: (error: unknown) => void
  now?: () => number
}

/**
 * Failed settlements cost the fee payer, not the buyer: a transaction that fails on chain is
 * charged its fee, and a send refused at preflight cost an RPC round. Each is counted against the
 * paying wallet; past the budget the wallet is refused at verification, before any RPC call,
 * until its oldest counted failure leaves the window. Judged from memory (no store call on the
 * paid path); with a store log, each failure is written there too and `sync` reads every
 * instance's back, so a restart or another instance knows them.
 */
export function createPayerFailureBudget (options: PayerFailureBudgetOptions) {
  const now = options.now ?? Date.now
  let failures = new Map<string, number[]>()
  /** Failures recorded here whose write to the log has not landed yet: kept across a sync. */
  const unwritten = new Set<{ payer: string, at: number }>()

  function recent (payer: string): number[] {
    const since = now() - options.windowMs
    const times = (failures.get(payer) ?? []).filter(at => at > since)
    if (times.length === 0) failures.delete(payer)
    else failures.set(payer, times)
    return times
  }

  return {
    /** Seconds until the wallet may pay again, or undefined when it is within its budget. */
    blockedFor (payer: string): number | undefined {
      if (options.limit === 0) return undefined
      const times = recent(payer)
      if (times.length < options.limit) return undefined
      return Math.max(1, Math.ceil((times[times.length - options.limit] + options.windowMs - now()) / 1000))
    },

    /** Counts one failed settlement against the wallet. */
    record (payer: string): void {
      if (options.limit === 0) return
      if (failures.size >= SWEEP_AT) for (const key of [...failures.keys()]) recent(key)
      const times = recent(payer)
      const at = now()
      times.push(at)
      failures.set(payer, times)
      if (times.length === options.limit) options.onBlocked?.(payer, times.length)
      if (options.log === undefined) return
      const entry = { payer, at }
      unwritten.add(entry)
      options.log.record(payer, at).then(() => unwritten.delete(entry), options.onLogError ?? (() => {}))
    },

    /** Reads the window's failures from the store's log (every instance's), and forgets older ones there. */
    async sync (): Promise<void> {
      if (options.log === undefined || options.limit === 0) return
      const since = now() - options.windowMs
      // A write that failed (a store outage) leaves its entry here: it counts until its window is over, then goes.
      for (const entry of unwritten) if (entry.at <= since) unwritten.delete(entry)
      const rows = await options.log.since(since, SYNC_LIMIT)
      const read = new Map<string, number[]>()
      for (const { payer, at } of [...rows, ...unwritten]) read.set(payer, [...(read.get(payer) ?? []), at])
      for (const times of read.values()) times.sort((a, b) => a - b)
      failures = read
      await options.log.prune(since)
    }
  }
}

export type PayerFailureBudget = ReturnType<typeof createPayerFailureBudget>
