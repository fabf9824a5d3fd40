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
}

const DAY_MS = 86_400_000

/** Writes the audit trail of verification attempts and counts unpaid challenges. */
export function createAuditLog (db: SqliteDatabase) {
  const insert = db.prepare(`
    INSERT INTO audit_log (at, request_id, service, resource, payer, signature, amount, outcome, verified, status, latency_ms)
    VALUES (@at, @requestId, @service, @resource, @payer, @signature, @amount, @outcome, @verified, @status, @latencyMs)`)
  const addChallenges = db.prepare(`
    INSERT INTO challenge_counts (service, day, count) VALUES (?, ?, ?)
    ON CONFLICT (service, day) DO UPDATE SET count = count + excluded.count`)
  // Unpaid challenges are counted in memory and written in one transaction per flush, so a
  // flood of requests without a proof costs no database write each.
  const pendingChallenges = new Map<string, { service: string, day: string, count: number }>()
  const flushChallenges = db.transaction(() => {
    for (const { service, day, count } of pendingChallenges.values()) addChallenges.run(service, day, count)
    pendingChallenges.clear()
  })
  // Oldest first, a bounded batch at a time: each row's delete trigger updates the reputation
  // aggregates, so one unbounded delete could hold the event loop for seconds.
  const pruneBatch = db.prepare('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)')
  const pruneChallenges = db.prepare('DELETE FROM challenge_counts WHERE day < ?')

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
        latencyMs: entry.latencyMs
      })
    },

    countChallenge (service: string, at = Date.now()): void {
      const day = new Date(at).toISOString().slice(0, 10)
      const key = `${service} ${day}`
      const pending = pendingChallenges.get(key)
      if (pending === undefined) pendingChallenges.set(key, { service, day, count: 1 })
      else pending.count++
    },

    /** Writes the challenges counted since the last flush. */
    flushChallenges (): void {
      if (pendingChallenges.size > 0) flushChallenges()
    },

    /** Deletes what is older than the retention period; returns how many audit rows went. */
    prune (retentionDays: number, now = Date.now(), batchSize = Number.MAX_SAFE_INTEGER): number {
      const cutoff = now - retentionDays * DAY_MS
      pruneChallenges.run(new Date(cutoff).toISOString().slice(0, 10))
      return pruneBatch.run(cutoff, batchSize).changes
    }
  }
}

export type AuditLog = ReturnType<typeof createAuditLog>
