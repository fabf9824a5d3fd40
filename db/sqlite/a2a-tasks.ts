import type { A2aTaskRepository } from '../contracts/a2a-tasks.js'
import type { SqliteDatabase } from './open-database.js'

/** A2A tasks on SQLite: one statement per call. */
export function createA2aTasks (db: SqliteDatabase): A2aTaskRepository {
  const upsert = db.prepare(`
    INSERT INTO a2a_tasks (id, body, final, updated_at, expires_at) VALUES (@id, @body, @final, @now, @expiresAt)
    ON CONFLICT (id) DO UPDATE SET body = excluded.body, final = excluded.final, updated_at = excluded.updated_at, expires_at = excluded.expires_at
    WHERE a2a_tasks.final = 0`)
  const select = db.prepare<[string, number], string>('SELECT body FROM a2a_tasks WHERE id = ? AND expires_at > ?').pluck()
  const deleteExpired = db.prepare('DELETE FROM a2a_tasks WHERE id IN (SELECT id FROM a2a_tasks WHERE expires_at <= ? LIMIT ?)')
  return {
    async save ({ id, body, final, retentionMs, now = Date.now() }) {
      upsert.run({ id, body, final: final ? 1 : 0, now, expiresAt: now + retentionMs })
    },
    async load (id, now = Date.now()) {
      return select.get(id, now)
    },
    async prune (now = Date.now(), batchSize = Number.MAX_SAFE_INTEGER) {
      return deleteExpired.run(now, batchSize).changes
    }
  }
}
