import type { DeliveryEvidence, DeliveryRecord } from '../contracts/delivery-evidence.js'
import type { SqliteDatabase } from './open-database.js'

/** The verified audit rows in id order (the primary key: a page is a range scan). */
export function createSqliteDeliveryEvidence (db: SqliteDatabase): DeliveryEvidence {
  const page = db.prepare(`
    SELECT id, signature, service, resource, amount, outcome, at FROM audit_log
    WHERE id > ? AND verified = 1 AND signature IS NOT NULL AND amount IS NOT NULL
    ORDER BY id LIMIT ?`).safeIntegers(true)
  return {
    async page (after, limit) {
      const rows = page.all(after, limit) as Array<{ id: bigint, signature: string, service: string, resource: string, amount: string, outcome: string, at: bigint }>
      return rows.map((row): DeliveryRecord => ({ ...row, amount: BigInt(row.amount), at: Number(row.at) }))
    }
  }
}
