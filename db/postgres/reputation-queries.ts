import type pg from 'pg'
import { DAY_MS, HOUR_MS, WHOLE_LOG_MS, windowParts, type LatencyBucket, type ReputationQueries } from '../contracts/reputation-queries.js'
import type { DatabaseCall } from './connection.js'
import { inTransaction } from './transaction.js'

// $1 from, $2 hourFrom, $3 dayFrom, $4 wholeFrom: as on SQLite, whole days, then whole hours, then
// the raw rows of the first partial hour.
const PERIODS_IN_WINDOW = `(
  period_ms = ${HOUR_MS} AND start >= $2 AND start < $3
  OR period_ms = ${DAY_MS} AND start >= $3 AND start < $4
  OR period_ms = ${WHOLE_LOG_MS} AND start >= $4)`

const OUTCOMES = `
  SELECT service, outcome, verified, sum(requests)::bigint AS requests, sum(revenue)::text AS revenue, sum(latency_us)::bigint AS latency_us
  FROM (
    SELECT service, outcome, verified, requests, revenue, latency_us FROM reputation_counts WHERE ${PERIODS_IN_WINDOW}
    UNION ALL
    SELECT service, outcome, verified, 1, CASE WHEN outcome = 'DELIVERED' THEN coalesce(amount, 0) ELSE 0 END, round(latency_ms * 1000)::bigint
    FROM audit_log WHERE at >= $1 AND at < $2
  ) rows
  GROUP BY service, outcome, verified`

const LATENCY = `
  SELECT service, upper_ms AS "upperMs", sum(requests)::bigint AS requests
  FROM (
    SELECT service, upper_ms, requests FROM reputation_latency WHERE ${PERIODS_IN_WINDOW}
    UNION ALL
    SELECT service, reputation_bucket(latency_ms), 1 FROM audit_log WHERE at >= $1 AND at < $2
  ) rows
  GROUP BY service, upper_ms
  ORDER BY service, upper_ms`

const SUMMARY = `SELECT
  (SELECT count(*) FROM reputation_payers WHERE last_at >= $1) AS "uniquePayers",
  (SELECT min(at) FROM audit_log WHERE at >= $1) AS "firstAt",
  (SELECT max(at) FROM audit_log WHERE at >= $1) AS "lastAt"`

/** The reputation figures on PostgreSQL, from the aggregates the triggers of 001-schema.sql keep. */
export function createPostgresReputationQueries (pool: pg.Pool, callDatabase: DatabaseCall): ReputationQueries {
  return {
    // One read-only snapshot: every figure from the same moment, even while requests write.
    async read (from) {
      const parts = windowParts(from)
      const windowValues = [parts.from, parts.hourFrom, parts.dayFrom, parts.wholeFrom]
      return await inTransaction(pool, callDatabase, async (client) => {
        const outcomes = await client.query<{ service: string, outcome: string, verified: boolean, requests: number, revenue: string, latency_us: number }>(OUTCOMES, windowValues)
        const latency = await client.query<LatencyBucket>(LATENCY, windowValues)
        const summary = await client.query<{ uniquePayers: number, firstAt: number | null, lastAt: number | null }>(SUMMARY, [parts.from])
        return {
          outcomes: outcomes.rows.map(row => ({
            service: row.service,
            outcome: row.outcome,
            verified: row.verified,
            requests: row.requests,
            revenue: BigInt(row.revenue),
            latencyMsSum: row.latency_us / 1000
          })),
          latency: latency.rows,
          ...summary.rows[0]
        }
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    }
  }
}
