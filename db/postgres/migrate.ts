import { join } from 'node:path'
import type pg from 'pg'
import { PROJECT_ROOT } from '../../project.js'
import { listMigrations } from '../migration-files.js'

export const POSTGRES_MIGRATIONS_DIR = join(PROJECT_ROOT, 'db', 'migrations', 'postgres')

/** Key of the session advisory lock that serializes migrations across every instance. */
const MIGRATION_LOCK = 'token-merchant:migrations'

/**
 * Applies each numbered migration once, each in its own transaction with its row in
 * schema_migrations. The whole run holds an advisory lock, so instances starting together against
 * an empty database wait for the first one and then find everything applied.
 */
export async function applyPostgresMigrations (pool: pg.Pool, dir = POSTGRES_MIGRATIONS_DIR): Promise<number[]> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [MIGRATION_LOCK])
    try {
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())')
      const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(row => row.version))
      const done: number[] = []
      for (const migration of listMigrations(dir)) {
        if (applied.has(migration.version)) continue
        await client.query('BEGIN')
        try {
          await client.query(migration.sql)
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name])
          await client.query('COMMIT')
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {})
          throw error
        }
        done.push(migration.version)
      }
      return done
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [MIGRATION_LOCK]).catch(() => {})
    }
  } finally {
    client.release()
  }
}
