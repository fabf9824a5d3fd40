import { randomUUID } from 'node:crypto'
import type { LimitCountLog } from '../../db/contracts/limit-counts.js'

/** The most keys one sync writes: the busiest clients first; the rest wait for the next sync. */
const PUBLISH_LIMIT = 1000
/** The most keys one sync reads back from the other instances. */
const READ_LIMIT = 10_000

export interface SharedCountsOptions {
  /** The store's table; without it, this process's counts only. */
  log?: LimitCountLog
  /** This process's name in the table (a new one per start: a restarted process's old counts still count until their window ends). */
  instance?: string
  now?: () => number
}

/**
 * What makes a limit one limit across instances: a counter that reaches its sharing threshold
 * offers its figure here, `sync` writes the offered figures to the store in one call and reads
 * every other instance's back. Judged from memory on every request; the store is called only by
 * `sync` (every few seconds), and only for clients busy enough to matter, so unpaid traffic costs no
 * store call of its own and light clients no row. Another instance's requests count from its next
 * sync on: a client spreading over N instances gets at most one sync interval's worth beyond the
 * limit.
 */
export function createSharedCounts (options: SharedCountsOptions = {}) {
  const now = options.now ?? Date.now
  const instance = options.instance ?? randomUUID()
  const offered = new Map<string, { count: number, expiresAt: number }>()
  let others = new Map<string, { count: number, expiresAt: number }>()

  return {
    /** True when there is a store to share with (otherwise counters need not offer anything). */
    shared: options.log !== undefined,

    /** The other instances' count for `key` and when the last of it expires (0 when none is valid now). */
    others (key: string): { count: number, expiresAt: number } {
      const entry = others.get(key)
      return entry === undefined || entry.expiresAt <= now() ? { count: 0, expiresAt: 0 } : entry
    },

    /** Offers this instance's figure for `key` (its window ends at `expiresAt`) to the next sync. */
    offer (key: string, count: number, expiresAt: number): void {
      if (options.log !== undefined) offered.set(key, { count, expiresAt })
    },

    /** Writes the offered figures (the busiest first), reads the other instances', forgets what expired. */
    async sync (): Promise<void> {
      if (options.log === undefined) return
      const at = now()
      const batch = [...offered].filter(([, entry]) => entry.expiresAt > at).sort(([, a], [, b]) => b.count - a.count).slice(0, PUBLISH_LIMIT)
      for (const [key, entry] of offered) if (entry.expiresAt <= at) offered.delete(key)
      await options.log.publish(instance, batch.map(([key, entry]) => ({ key, ...entry })))
      // Only what was written leaves: a figure offered again meanwhile is newer and stays.
      for (const [key, entry] of batch) if (offered.get(key) === entry) offered.delete(key)
      const rows = await options.log.others(instance, at, READ_LIMIT)
      others = new Map(rows.map(({ key, count, expiresAt }) => [key, { count, expiresAt }]))
      await options.log.prune(at)
    }
  }
}

export type SharedCounts = ReturnType<typeof createSharedCounts>
