import type pg from 'pg'
import type { DeliveryEvidence } from '../contracts/delivery-evidence.js'
import type { DatabaseCall } from './connection.js'

const PAGE = `
  SELECT id::text, signature, service, resource, amount::text, outcome, at::text FROM audit_log
  WHERE id > $1 AND verified AND signature IS NOT NULL AND amount IS NOT NULL
  ORDER BY id LIMIT $2`

/** The verified audit rows in id order, as on SQLite. */
export function createPostgresDeliveryEvidence (pool: pg.Pool, callDatabase: DatabaseCall): DeliveryEvidence {
  return {
    async page (after, limit) {
      const { rows } = await callDatabase(async () => await pool.query<{ id: string, signature: string, service: string, resource: string, amount: string, outcome: string, at: string }>(PAGE, [after.toString(), limit]))
      return rows.map(row => ({ ...row, id: BigInt(row.id), amount: BigInt(row.amount), at: Number(row.at) }))
    }
  }
}
