import type pg from 'pg'
import type { A2aTaskRepository } from '../contracts/a2a-tasks.js'
import type { DatabaseCall } from './connection.js'

// The database's clock when the caller gives no time: one clock for every instance.
const CLOCK_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint'
const UPSERT = `INSERT INTO a2a_tasks AS a (id, body, final, updated_at, expires_at)
  SELECT $1, $2, $5, t.now, t.now + $3 FROM (SELECT coalesce($4::bigint, ${CLOCK_MS}) AS now) t
  ON CONFLICT (id) DO UPDATE SET body = excluded.body, final = excluded.final, updated_at = excluded.updated_at, expires_at = excluded.expires_at
  WHERE NOT a.final`
const SELECT = `SELECT body FROM a2a_tasks WHERE id = $1 AND expires_at > coalesce($2::bigint, ${CLOCK_MS})`
const PRUNE = `DELETE FROM a2a_tasks WHERE id IN (SELECT id FROM a2a_tasks WHERE expires_at <= coalesce($1::bigint, ${CLOCK_MS}) LIMIT $2)`

/** A2A tasks on PostgreSQL: one statement per call; an unreachable database is STORE_UNAVAILABLE. */
export function createPostgresA2aTasks (pool: pg.Pool, callDatabase: DatabaseCall): A2aTaskRepository {
  return {
    async save ({ id, body, final, retentionMs, now }) {
      await callDatabase(async () => await pool.query(UPSERT, [id, body, retentionMs, now ?? null, final]))
    },
    async load (id, now) {
      const { rows } = await callDatabase(async () => await pool.query<{ body: string }>(SELECT, [id, now ?? null]))
      return rows[0]?.body
    },
    async prune (now, batchSize = Number.MAX_SAFE_INTEGER) {
      return (await callDatabase(async () => await pool.query(PRUNE, [now ?? null, batchSize]))).rowCount ?? 0
    }
  }
}
