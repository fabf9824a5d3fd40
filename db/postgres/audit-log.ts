import type pg from 'pg'
import type { AuditLog } from '../contracts/audit-log.js'
import { createUnpaidCounter } from '../unpaid-counter.js'
import type { DatabaseCall } from './connection.js'

const DAY_MS = 86_400_000
const PRUNE_LOCK = 'token-merchant:prune'

// A payment has one row: the statement replaces an earlier row of the same signature (keeping the
// first attempt's time), deleting and inserting so the reputation triggers follow. With a fate
// ($13 reached, $14 redelivered), the kept answer is marked in the same statement: reached for
// good, or lost unless known reached; a re-delivery that reached the buyer lifts its call's cancel.
const INSERT = {
  name: 'tm-audit-record',
  text: `WITH marked AS (UPDATE kept_answers SET reached = $13::boolean
      WHERE $13::boolean IS NOT NULL AND signature = $6::text AND ($13::boolean OR reached IS NULL)
      RETURNING signature),
    uncancelled AS (UPDATE payment_claims c SET cancelled = false FROM marked m WHERE $14::boolean AND c.signature = m.signature),
    earlier AS (DELETE FROM audit_log WHERE $6::text IS NOT NULL AND signature = $6::text RETURNING at)
    INSERT INTO audit_log (at, request_id, service, resource, payer, signature, amount, outcome, verified, status, latency_ms, flow)
    VALUES (coalesce((SELECT min(at) FROM earlier), $1), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
}

/**
 * The audit trail and the unpaid counters on PostgreSQL; the aggregates follow through triggers
 * (001-schema.sql). A payment's row (and its kept answer's mark) commits through `fast`, without
 * waiting for the WAL flush: it is written after the payment's redeem, whose flush made the
 * delivery durable, so a crash of the database server within the flush interval can lose the row
 * of a delivered payment, never the payment (its claim says redeemed, and its kept answer is
 * re-delivered at most once more). Pruning and the unpaid counters keep the durable pool.
 */
export function createPostgresAuditLog ({ durable, fast }: { durable: pg.Pool, fast: pg.Pool }, callDatabase: DatabaseCall): AuditLog {
  // As on SQLite: unpaid requests are counted in memory and written in one statement per flush.
  const unpaid = createUnpaidCounter()

  return {
    async record (entry, fate) {
      await callDatabase(async () => await fast.query({
        ...INSERT,
        values: [entry.at ?? Date.now(), entry.requestId, entry.service, entry.resource, entry.payer ?? null, entry.signature ?? null,
          entry.amount?.toString() ?? null, entry.outcome, entry.verified, entry.status, entry.latencyMs, entry.flow ?? 'proof',
          fate?.reached ?? null, fate?.redelivered === true]
      }))
    },

    countUnpaid (service, outcome, at) {
      unpaid.count(service, outcome, at)
    },

    async flushUnpaid () {
      await unpaid.flush(async batch => await callDatabase(async () => await durable.query(`
        INSERT INTO unpaid_counts AS u (service, day, outcome, count)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
        ON CONFLICT (service, day, outcome) DO UPDATE SET count = u.count + excluded.count`,
      [batch.map(b => b.service), batch.map(b => b.day), batch.map(b => b.outcome), batch.map(b => b.count)])))
    },

    // One instance prunes at a time (a transaction-scoped advisory lock; the others skip this
    // round), so two batches never update the same aggregate rows in different orders.
    async prune (retentionDays, now = Date.now(), batchSize = Number.MAX_SAFE_INTEGER) {
      const cutoff = now - retentionDays * DAY_MS
      return await callDatabase(async () => {
        const client = await durable.connect()
        let failed = false
        try {
          await client.query('BEGIN')
          const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked', [PRUNE_LOCK])
          if (!rows[0].locked) {
            await client.query('ROLLBACK')
            return 0
          }
          await client.query('DELETE FROM unpaid_counts WHERE day < $1', [new Date(cutoff).toISOString().slice(0, 10)])
          const deleted = await client.query('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < $1 ORDER BY at LIMIT $2)',
            [cutoff, Math.min(batchSize, Number.MAX_SAFE_INTEGER)])
          await client.query('COMMIT')
          return deleted.rowCount ?? 0
        } catch (error) {
          failed = true
          await client.query('ROLLBACK').catch(() => {})
          throw error
        } finally {
          client.release(failed) // a connection that failed is closed, not reused
        }
      })
    }
  }
}
