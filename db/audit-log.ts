import type { SqliteDatabase } from './open-database.js'

export interface AuditEntry {
  at?: number
  requestId: string
  service: string
  resource: string
  payer?: string
  signature?: string
  amount?: bigint
  outcome: string
  verified: boolean
  status: number
  latencyMs: number
  /** How it was paid: 'proof' (seed headers), 'x402-v1', 'x402-v2' or 'mcp'. */
  flow?: 'proof' | 'x402-v1' | 'x402-v2' | 'mcp'
}

const DAY_MS = 86_400_000

/** Writes the audit trail of verified payments and counts unpaid requests. */
export function createAuditLog (db: SqliteDatabase) {
  const insert = db.prepare(`
    INSERT INTO audit_log (at, request_id, service, resource, payer, signature, amount, outcome, verified, status, latency_ms, flow)
    VALUES (@at, @requestId, @service, @resource, @payer, @signature, @amount, @outcome, @verified, @status, @latencyMs, @flow)`)
  const addUnpaidSql = `
    INSERT INTO unpaid_counts (service, day, outcome, count) VALUES (?, ?, ?, ?)
    ON CONFLICT (service, day, outcome) DO UPDATE SET count = count + excluded.count`
  // Unpaid requests (no proof, or one that names no verifiable payment) are counted in memory and
  // written in one transaction per flush: a flood of them costs no database write each, and the
  // counters are bounded by services x days x codes.
  const pendingUnpaid = new Map<string, { service: string, day: string, outcome: string, count: number }>()
  const flushUnpaid = db.transaction(() => {
    const addUnpaid = db.prepare(addUnpaidSql)
    for (const { service, day, outcome, count } of pendingUnpaid.values()) addUnpaid.run(service, day, outcome, count)
    pendingUnpaid.clear()
  })
  // Oldest first, a bounded batch at a time: each row's delete trigger updates the reputation
  // aggregates, so one unbounded delete could hold the event loop for seconds.
  const pruneBatch = db.prepare('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)')

  return {
    record (entry: AuditEntry): void {
      insert.run({
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
      })
    },

    /** Counts a request that paid nothing: PAYMENT_REQUIRED (no proof) or the code it was refused with. */
    countUnpaid (service: string, outcome: string, at = Date.now()): void {
      const day = new Date(at).toISOString().slice(0, 10)
      const key = `${service} ${day} ${outcome}`
      const pending = pendingUnpaid.get(key)
      if (pending === undefined) pendingUnpaid.set(key, { service, day, outcome, count: 1 })
      else pending.count++
    },

    /** Writes the unpaid requests counted since the last flush. */
    flushUnpaid (): void {
      if (pendingUnpaid.size > 0) flushUnpaid()
    },

    /** Deletes what is older than the retention period; returns how many audit rows went. */
    prune (retentionDays: number, now = Date.now(), batchSize = Number.MAX_SAFE_INTEGER): number {
      const cutoff = now - retentionDays * DAY_MS
      db.prepare('DELETE FROM unpaid_counts WHERE day < ?').run(new Date(cutoff).toISOString().slice(0, 10))
      return pruneBatch.run(cutoff, batchSize).changes
    }
  }
}

export type AuditLog = ReturnType<typeof createAuditLog>
