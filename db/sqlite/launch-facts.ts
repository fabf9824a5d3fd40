import type { LaunchFactsRepository } from '../contracts/launch-facts.js'
import type { SqliteDatabase } from './open-database.js'

/** Launch facts on SQLite: one statement per call. */
export function createLaunchFacts (db: SqliteDatabase): LaunchFactsRepository {
  const insert = db.prepare('INSERT INTO launch_facts (network, mint, facts, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (network, mint) DO NOTHING')
  const select = db.prepare<[string, string], string>('SELECT facts FROM launch_facts WHERE network = ? AND mint = ?').pluck()
  const insertFunder = db.prepare('INSERT INTO wallet_funders (network, wallet, funder, signature) VALUES (?, ?, ?, ?) ON CONFLICT (network, wallet) DO NOTHING')
  const selectFunders = db.prepare<[string, string], { wallet: string, funder: string, signature: string }>('SELECT wallet, funder, signature FROM wallet_funders WHERE network = ? AND wallet IN (SELECT value FROM json_each(?))')
  return {
    async load (network, mint) {
      return select.get(network, mint)
    },
    async save (network, mint, facts, now = Date.now()) {
      insert.run(network, mint, facts, now)
    },
    async loadFunders (network, wallets) {
      return new Map(selectFunders.all(network, JSON.stringify(wallets)).map(row => [row.wallet, { funder: row.funder, signature: row.signature }]))
    },
    async saveFunder (network, wallet, funder, signature) {
      insertFunder.run(network, wallet, funder, signature)
    }
  }
}
