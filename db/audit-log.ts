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
  const countChallenge = db.prepare(`
    INSERT INTO challenge_counts (service, day, count) VALUES (?, ?, 1)
    ON CONFLICT (service, day) DO UPDATE SET count = count + 1`)
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
      countChallenge.run(service, new Date(at).toISOString().slice(0, 10))
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
