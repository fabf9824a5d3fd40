import type pg from 'pg'
import type { ServiceSecrets } from '../contracts/service-secrets.js'
import type { DatabaseCall } from './connection.js'

// One statement: the row kept before, or the one this call inserted.
const GET_OR_KEEP = `WITH kept AS (
    INSERT INTO service_secrets (name, secret, created_at)
    VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
    ON CONFLICT (name) DO NOTHING RETURNING secret
  )
  SELECT secret FROM kept UNION ALL SELECT secret FROM service_secrets WHERE name = $1 LIMIT 1`

/** Service secrets on PostgreSQL; an unreachable database is STORE_UNAVAILABLE. */
export function createPostgresServiceSecrets (pool: pg.Pool, callDatabase: DatabaseCall): ServiceSecrets {
  return {
    async getOrKeep (name, made) {
      const { rows } = await callDatabase(async () => await pool.query<{ secret: string }>(GET_OR_KEEP, [name, made]))
      return rows[0].secret
    }
  }
}
