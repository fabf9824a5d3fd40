/** Requests of one service that ended with one outcome. */
export interface OutcomeFigures {
  service: string
  outcome: string
  verified: boolean
  requests: number
  /** Base units of the DELIVERED ones. */
  revenue: bigint
  latencyMsSum: number
}

/** Requests of one service whose latency fell in the bucket ending at upperMs. */
export interface LatencyBucket {
  service: string
  upperMs: number
  requests: number
}

export interface ReputationFigures {
  outcomes: OutcomeFigures[]
  /** Per service, buckets in ascending order. */
  latency: LatencyBucket[]
  uniquePayers: number
  firstAt: number | null
  lastAt: number | null
}

/** Reads the reputation figures of a window ending now, the same on every engine. */
export interface ReputationQueries {
  /** Figures of the audit rows written at or after `from` (unix ms; 0 for the whole log), from one snapshot. */
  read (from: number): Promise<ReputationFigures>
}

// The periods of the aggregate tables (rows of reputation_periods in 003-reputation.sql); the
// last one holds the whole log in a single period that starts at 0.
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000
export const WHOLE_LOG_MS = Number.MAX_SAFE_INTEGER

const ceilTo = (ms: number, period: number) => Math.ceil(ms / period) * period

/**
 * How the window [from, now] splits over the tables: raw audit rows in [from, hourFrom), hour rows
 * in [hourFrom, dayFrom), day rows in [dayFrom, wholeFrom). From 0, every range is empty and
 * wholeFrom = 0 selects the whole-log period; from any later time, wholeFrom excludes it.
 */
export function windowParts (from: number) {
  return { from, hourFrom: ceilTo(from, HOUR_MS), dayFrom: ceilTo(from, DAY_MS), wholeFrom: ceilTo(from, WHOLE_LOG_MS) }
}
