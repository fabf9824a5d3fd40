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
  const pruneRows = db.prepare('DELETE FROM audit_log WHERE at < ?')
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
    prune (retentionDays: number, now = Date.now()): number {
      const cutoff = now - retentionDays * DAY_MS
      pruneChallenges.run(new Date(cutoff).toISOString().slice(0, 10))
      return pruneRows.run(cutoff).changes
    }
  }
}

export type AuditLog = ReturnType<typeof createAuditLog>
