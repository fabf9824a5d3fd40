import type { LimitCountLog } from '../contracts/limit-counts.js'
import type { SqliteDatabase } from './open-database.js'

/** The shared limit counts on SQLite. */
export function createLimitCountLog (db: SqliteDatabase): LimitCountLog {
  const upsert = db.prepare('INSERT INTO limit_counts (instance, key, count, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (instance, key) DO UPDATE SET count = excluded.count, expires_at = excluded.expires_at')
  const publish = db.transaction((instance: string, counts: ReadonlyArray<{ key: string, count: number, expiresAt: number }>) => {
    for (const { key, count, expiresAt } of counts) upsert.run(instance, key, count, expiresAt)
  })
  const others = db.prepare<[string, number, number], { key: string, count: number, expiresAt: number }>(
    'SELECT key, SUM(count) AS count, MAX(expires_at) AS expiresAt FROM limit_counts WHERE instance <> ? AND expires_at > ? GROUP BY key LIMIT ?')
  const prune = db.prepare('DELETE FROM limit_counts WHERE expires_at <= ?')
  return {
    async publish (instance, counts) { if (counts.length > 0) publish(instance, counts) },
    async others (instance, now, limit) { return others.all(instance, now, limit) },
    async prune (now) { prune.run(now) }
  }
}
