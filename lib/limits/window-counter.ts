import type { SharedCounts } from './shared-counts.js'

// Clients are forgotten once their window is over; the sweep runs when the table gets this big.
const SWEEP_AT = 10_000

export interface WindowCounterOptions {
  windowMs: number
  now?: (() => number) | undefined
  /**
   * Counts of every instance sharing the store (none: this process's only): `scope` names this
   * counter's keys there, `limit` is the limit they are held to.
   */
  shared?: { counts: SharedCounts | undefined, scope: string, limit: number }
}

/**
 * A client's figure is offered to the other instances from a tenth of the limit on: below it a
 * client costs no row, and spread over N instances it gets at most N tenths of the limit unseen.
 */
const shareFrom = (limit: number): number => Math.max(1, Math.ceil(limit / 10))

/** A client's count in its window, this instance's and the others' together. */
export interface WindowCount {
  count: number
  /** Milliseconds until the counts that make up `count` have all left their windows. */
  resetMs: number
  /** The same in whole seconds, at least 1: a Retry-After. */
  retryAfterSeconds: number
}

/**
 * A fixed window per client, starting at its first event: the count behind a limit (requests,
 * failed proofs). With shared counts, the other instances' figures for the client are added in.
 */
export function createWindowCounter (options: WindowCounterOptions) {
  const now = options.now ?? Date.now
  const windows = new Map<string, { start: number, count: number }>()
  const counts = options.shared?.counts
  const scope = options.shared?.scope
  const from = shareFrom(options.shared?.limit ?? 1)

  function live (client: string, at: number) {
    const window = windows.get(client)
    return window === undefined || at - window.start >= options.windowMs ? undefined : window
  }

  function total (client: string, at: number, window: { start: number, count: number } | undefined): WindowCount {
    const others = counts?.others(`${scope}:${client}`) ?? { count: 0, expiresAt: 0 }
    const until = Math.max(window === undefined ? 0 : window.start + options.windowMs, others.expiresAt)
    const resetMs = Math.max(0, until - at)
    return { count: (window?.count ?? 0) + others.count, resetMs, retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)) }
  }

  return {
    /** The client's count now, without counting anything. */
    peek (client: string): WindowCount {
      const at = now()
      return total(client, at, live(client, at))
    },

    /** Counts one event of the client, then answers its count. */
    add (client: string): WindowCount {
      const at = now()
      if (windows.size >= SWEEP_AT) for (const [key] of windows) if (live(key, at) === undefined) windows.delete(key)
      let window = live(client, at)
      if (window === undefined) windows.set(client, window = { start: at, count: 1 })
      else window.count++
      if (counts !== undefined && window.count >= from) counts.offer(`${scope}:${client}`, window.count, window.start + options.windowMs)
      return total(client, at, window)
    }
  }
}

export type WindowCounter = ReturnType<typeof createWindowCounter>
