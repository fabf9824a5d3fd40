import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { applyMigrations } from './migrate.js'

export type SqliteDatabase = Database.Database

/**
 * Opens the SQLite file for use by several processes at once (PM2 cluster): WAL lets readers
 * run beside the one writer, and busy_timeout makes a writer wait instead of failing.
 */
export function openDatabase (path: string, options: { synchronous?: 'NORMAL' | 'FULL' } = {}): SqliteDatabase {
  // data/ also holds the merchant keypair: created for its owner only.
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('busy_timeout = 5000')
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`)
  db.pragma('foreign_keys = ON')
  applyMigrations(db)
  return db
}
