import { DAY_MS, HOUR_MS, WHOLE_LOG_MS, windowParts, type LatencyBucket, type ReputationFigures, type ReputationQueries } from '../contracts/reputation-queries.js'
import type { SqliteDatabase } from './open-database.js'

const BILLION = 1_000_000_000n

const PERIODS_IN_WINDOW = `
  period_ms = ${HOUR_MS} AND start >= @hourFrom AND start < @dayFrom
  OR period_ms = ${DAY_MS} AND start >= @dayFrom AND start < @wholeFrom
  OR period_ms = ${WHOLE_LOG_MS} AND start >= @wholeFrom`

// The same contributions per row as the triggers of 005-exact-revenue.sql: revenue split at 10^9.
const ROW_REVENUE_HI = "iif(outcome = 'DELIVERED', coalesce(CAST(substr(amount, 1, max(length(amount) - 9, 0)) AS INTEGER), 0), 0)"
const ROW_REVENUE_LO = "iif(outcome = 'DELIVERED', coalesce(CAST(substr(amount, -9) AS INTEGER), 0), 0)"
const ROW_LATENCY_US = 'CAST(round(latency_ms * 1000) AS INTEGER)'
const ROW_BUCKET = 'coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= latency_ms), latency_ms)'

/** Reads the reputation figures of a window ending now from the aggregates that 003-reputation.sql maintains. */
export function createReputationQueries (db: SqliteDatabase): ReputationQueries {
  const outcomes = db.prepare(`
    SELECT service, outcome, verified, sum(requests) AS requests, sum(revenue_hi) AS revenue_hi, sum(revenue_lo) AS revenue_lo,
      sum(latency_us) AS latency_us
    FROM (
      SELECT service, outcome, verified, requests, revenue_hi, revenue_lo, latency_us FROM reputation_counts WHERE ${PERIODS_IN_WINDOW}
      UNION ALL
      SELECT service, outcome, verified, 1, ${ROW_REVENUE_HI}, ${ROW_REVENUE_LO}, ${ROW_LATENCY_US} FROM audit_log WHERE at >= @from AND at < @hourFrom
    )
    GROUP BY service, outcome, verified`).safeIntegers(true)
  const latency = db.prepare(`
    SELECT service, upper_ms AS upperMs, sum(requests) AS requests
    FROM (
      SELECT service, upper_ms, requests FROM reputation_latency WHERE ${PERIODS_IN_WINDOW}
      UNION ALL
      SELECT service, ${ROW_BUCKET}, 1 FROM audit_log WHERE at >= @from AND at < @hourFrom
    )
    GROUP BY service, upper_ms
    ORDER BY service, upper_ms`)
  const uniquePayers = db.prepare('SELECT count(*) FROM reputation_payers WHERE last_at >= @from').pluck()
  const activity = db.prepare(`SELECT
    (SELECT min(at) FROM audit_log WHERE at >= @from) AS firstAt,
    (SELECT max(at) FROM audit_log WHERE at >= @from) AS lastAt`)

  // One read transaction: every figure comes from the same snapshot, even while requests write.
  const read = db.transaction((from: number): ReputationFigures => {
    const parts = windowParts(from)
    const rows = outcomes.all(parts) as Array<{ service: string, outcome: string, verified: bigint, requests: bigint, revenue_hi: bigint, revenue_lo: bigint, latency_us: bigint }>
    const { firstAt, lastAt } = activity.get({ from: parts.from }) as { firstAt: number | null, lastAt: number | null }
    return {
      outcomes: rows.map(row => ({
        service: row.service,
        outcome: row.outcome,
        verified: row.verified === 1n,
        requests: Number(row.requests),
        revenue: row.revenue_hi * BILLION + row.revenue_lo,
        latencyMsSum: Number(row.latency_us) / 1000
      })),
      latency: latency.all(parts) as LatencyBucket[],
      uniquePayers: uniquePayers.get({ from: parts.from }) as number,
      firstAt,
      lastAt
    }
  })

  return {
    async read (from) {
      return read(from)
    }
  }
}
