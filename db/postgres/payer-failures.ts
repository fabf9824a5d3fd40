import type pg from 'pg'
import type { PayerFailureLog } from '../contracts/payer-failures.js'
import type { DatabaseCall } from './connection.js'

/** The payer failure log on PostgreSQL; an unreachable database is STORE_UNAVAILABLE. */
export function createPostgresPayerFailureLog (pool: pg.Pool, callDatabase: DatabaseCall): PayerFailureLog {
  return {
    async record (payer, at) {
      await callDatabase(async () => await pool.query('INSERT INTO payer_failures (payer, at) VALUES ($1, $2)', [payer, at]))
    },
    async since (since, limit) {
      const { rows } = await callDatabase(async () => await pool.query<{ payer: string, at: string }>('SELECT payer, at FROM payer_failures WHERE at >= $1 ORDER BY at, id LIMIT $2', [since, limit]))
      return rows.map(row => ({ payer: row.payer, at: Number(row.at) }))
    },
    async prune (before) {
      await callDatabase(async () => await pool.query('DELETE FROM payer_failures WHERE at < $1', [before]))
    }
  }
}
