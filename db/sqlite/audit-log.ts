import type { AnswerFate, AuditLog } from '../contracts/audit-log.js'
import type { SqliteDatabase } from './open-database.js'
import { createUnpaidCounter, type UnpaidCount } from '../unpaid-counter.js'

const DAY_MS = 86_400_000

/** Writes the audit trail of verified payments and counts unpaid requests. */
export function createAuditLog (db: SqliteDatabase): AuditLog {
  const insert = db.prepare(`
    INSERT INTO audit_log (at, request_id, service, resource, payer, signature, amount, outcome, verified, status, latency_ms, flow)
    VALUES (@at, @requestId, @service, @resource, @payer, @signature, @amount, @outcome, @verified, @status, @latencyMs, @flow)`)
  const firstAt = db.prepare('SELECT min(at) FROM audit_log WHERE signature = ?').pluck()
  const removePayment = db.prepare('DELETE FROM audit_log WHERE signature = ?')
  // The kept answer's fate: reached for good, or lost unless it is known reached already.
  const markReached = db.prepare('UPDATE kept_answers SET reached = 1 WHERE signature = ?')
  const markLost = db.prepare('UPDATE kept_answers SET reached = 0 WHERE signature = ? AND reached IS NULL')
  const uncancel = db.prepare('UPDATE payment_claims SET cancelled = 0 WHERE signature = ? AND EXISTS (SELECT 1 FROM kept_answers WHERE signature = ?)')
  // Delete and insert rather than update: the reputation aggregates follow through their insert
  // and delete triggers (migration 003). The fate of the kept answer commits with the row.
  const recordRow = db.transaction((row: Record<string, unknown> & { at: number, signature: string | null }, fate: AnswerFate | undefined) => {
    if (row.signature !== null && fate !== undefined) {
      if (!fate.reached) markLost.run(row.signature)
      else {
        markReached.run(row.signature)
        if (fate.redelivered === true) uncancel.run(row.signature, row.signature)
      }
    }
    if (row.signature !== null) {
      const first = firstAt.get(row.signature) as number | null
      if (first !== null) {
        row.at = first
        removePayment.run(row.signature)
      }
    }
    insert.run(row)
  })
  const addUnpaidSql = `
    INSERT INTO unpaid_counts (service, day, outcome, count) VALUES (?, ?, ?, ?)
    ON CONFLICT (service, day, outcome) DO UPDATE SET count = count + excluded.count`
  // Unpaid requests (no proof, or one that names no verifiable payment) are counted in memory and
  // written in one transaction per flush: a flood of them costs no database write each, and the
  // counters are bounded by services x days x codes.
  const unpaid = createUnpaidCounter()
  const writeUnpaid = db.transaction((rows: UnpaidCount[]) => {
    const addUnpaid = db.prepare(addUnpaidSql)
    for (const { service, day, outcome, count } of rows) addUnpaid.run(service, day, outcome, count)
  })
  // Oldest first, a bounded batch at a time: each row's delete trigger updates the reputation
  // aggregates, so one unbounded delete could hold the event loop for seconds.
  const pruneBatch = db.prepare('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)')

  return {
    async record (entry, fate) {
      recordRow.immediate({
        at: entry.at ?? Date.now(),
        requestId: entry.requestId,
        service: entry.service,
        resource: entry.resource,
        payer: entry.payer ?? null,
        signature: entry.signature ?? null,
        amount: entry.amount?.toString() ?? null,
        outcome: entry.outcome,
        verified: entry.verified ? 1 : 0,
        status: entry.status,
        latencyMs: entry.latencyMs,
        flow: entry.flow ?? 'proof'
      }, fate)
    },

    /** Counts a request that paid nothing: PAYMENT_REQUIRED (no proof) or the code it was refused with. */
    countUnpaid (service, outcome, at) {
      unpaid.count(service, outcome, at)
    },

    async flushUnpaid () {
      await unpaid.flush(writeUnpaid)
    },

    async prune (retentionDays, now = Date.now(), batchSize = Number.MAX_SAFE_INTEGER) {
      const cutoff = now - retentionDays * DAY_MS
      db.prepare('DELETE FROM unpaid_counts WHERE day < ?').run(new Date(cutoff).toISOString().slice(0, 10))
      return pruneBatch.run(cutoff, batchSize).changes
    }
  }
}
