import type pg from 'pg'
import type { ServiceSecrets } from '../contracts/service-secrets.js'
import type { DatabaseCall } from './connection.js'

// One statement, one row: the secret kept before, or the one this call inserted. ON CONFLICT DO
// UPDATE (a no-op on `name`) returns the row that won; DO NOTHING with a SELECT beside it did not
// when two instances started at once: the loser waited for the winner's insert, and its SELECT's
// snapshot, taken before that commit, saw no row (rows[0] undefined, the start-up failed).
const GET_OR_KEEP = `INSERT INTO service_secrets (name, secret, created_at)
  VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
  RETURNING secret`

/** Service secrets on PostgreSQL; an unreachable database is STORE_UNAVAILABLE. */
export function createPostgresServiceSecrets (pool: pg.Pool, callDatabase: DatabaseCall): ServiceSecrets {
  return {
    async getOrKeep (name, made) {
      const { rows } = await callDatabase(async () => await pool.query<{ secret: string }>(GET_OR_KEEP, [name, made]))
      return rows[0].secret
    }
  }
}
