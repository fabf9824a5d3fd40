/**
 * Request and failure counts of the busiest clients (lib/limits/shared-counts.ts), published by
 * each instance so that every instance sharing the store holds a client to one limit, not one
 * per instance. Each instance's figure for a key replaces its previous one; a row lives until its
 * window ends. The same on every engine; times are unix ms.
 */
export interface LimitCountLog {
  /** Sets `instance`'s count of each key, valid until its `expiresAt`. */
  publish (instance: string, counts: ReadonlyArray<{ key: string, count: number, expiresAt: number }>): Promise<void>
  /** The other instances' counts still valid at `now`, summed per key, at most `limit` keys. */
  others (instance: string, now: number, limit: number): Promise<Array<{ key: string, count: number, expiresAt: number }>>
  /** Forgets the counts whose window ended before `now`. */
  prune (now: number): Promise<void>
}
