import type pg from 'pg'
import type { LimitCountLog } from '../contracts/limit-counts.js'
import type { DatabaseCall } from './connection.js'

/** The shared limit counts on PostgreSQL, one statement per call; an unreachable database is STORE_UNAVAILABLE. */
export function createPostgresLimitCountLog (pool: pg.Pool, callDatabase: DatabaseCall): LimitCountLog {
  return {
    async publish (instance, counts) {
      if (counts.length === 0) return
      await callDatabase(async () => await pool.query(
        `INSERT INTO limit_counts (instance, key, count, expires_at)
           SELECT $1, * FROM unnest($2::text[], $3::integer[], $4::bigint[])
         ON CONFLICT (instance, key) DO UPDATE SET count = excluded.count, expires_at = excluded.expires_at`,
        [instance, counts.map(c => c.key), counts.map(c => c.count), counts.map(c => c.expiresAt)]))
    },
    async others (instance, now, limit) {
      const { rows } = await callDatabase(async () => await pool.query<{ key: string, count: string, expires_at: string }>(
        'SELECT key, SUM(count) AS count, MAX(expires_at) AS expires_at FROM limit_counts WHERE instance <> $1 AND expires_at > $2 GROUP BY key LIMIT $3',
        [instance, now, limit]))
      return rows.map(row => ({ key: row.key, count: Number(row.count), expiresAt: Number(row.expires_at) }))
    },
    async prune (now) {
      await callDatabase(async () => await pool.query('DELETE FROM limit_counts WHERE expires_at <= $1', [now]))
    }
  }
}
