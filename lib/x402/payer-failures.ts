// Clients are forgotten once their window is over; the sweep runs when the table gets this big.
const SWEEP_AT = 10_000

export interface PayerFailureBudgetOptions {
  /** Failed settlements a wallet may cause per window; 0 turns the budget off. */
  limit: number
  windowMs: number
  /** Called once when a wallet uses up its budget (a warning for operators). */
  onBlocked?: (payer: string, failures: number) => void
  now?: () => number
}

/**
 * Failed settlements cost the fee payer, not the buyer: a transaction that fails on chain is
 * charged its fee, and a send refused at preflight cost an RPC round. Each is counted against the
 * paying wallet; past the budget the wallet is refused at verification, before any RPC call,
 * until its oldest counted failure leaves the window. Kept in this process's memory.
 */
export function createPayerFailureBudget (options: PayerFailureBudgetOptions) {
  const now = options.now ?? Date.now
  const failures = new Map<string, number[]>()

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
      times.push(now())
      failures.set(payer, times)
      if (times.length === options.limit) options.onBlocked?.(payer, times.length)
    }
  }
}

export type PayerFailureBudget = ReturnType<typeof createPayerFailureBudget>
