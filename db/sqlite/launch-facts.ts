import type { LaunchFactsRepository } from '../contracts/launch-facts.js'
import type { SqliteDatabase } from './open-database.js'

/** Launch facts on SQLite: one statement per call. */
export function createLaunchFacts (db: SqliteDatabase): LaunchFactsRepository {
  const insert = db.prepare('INSERT INTO launch_facts (network, mint, facts, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (network, mint) DO NOTHING')
  const select = db.prepare<[string, string], string>('SELECT facts FROM launch_facts WHERE network = ? AND mint = ?').pluck()
  return {
    async load (network, mint) {
      return select.get(network, mint)
    },
    async save (network, mint, facts, now = Date.now()) {
      insert.run(network, mint, facts, now)
    }
  }
}
