import type { PayerFailureLog } from '../contracts/payer-failures.js'
import type { SqliteDatabase } from './open-database.js'

/** The payer failure log on SQLite. */
export function createPayerFailureLog (db: SqliteDatabase): PayerFailureLog {
  const insert = db.prepare('INSERT INTO payer_failures (payer, at) VALUES (?, ?)')
  const select = db.prepare<[number, number], { payer: string, at: number }>('SELECT payer, at FROM payer_failures WHERE at >= ? ORDER BY at, id LIMIT ?')
  const prune = db.prepare('DELETE FROM payer_failures WHERE at < ?')
  return {
    async record (payer, at) { insert.run(payer, at) },
    async since (since, limit) { return select.all(since, limit) },
    async prune (before) { prune.run(before) }
  }
}
