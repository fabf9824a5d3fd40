import type Database from 'better-sqlite3'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../project.js'
import { listMigrations } from '../migration-files.js'

export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'db', 'migrations', 'sqlite')

/**
 * Applies each migration once and records it. The whole run holds the write lock
 * (BEGIN IMMEDIATE), so processes starting together apply nothing twice.
 */
export function applyMigrations (db: Database.Database, dir = MIGRATIONS_DIR): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
  const run = db.transaction(() => {
    const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[])
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
    const done: number[] = []
    for (const migration of listMigrations(dir)) {
      if (applied.has(migration.version)) continue
      db.exec(migration.sql)
      record.run(migration.version, migration.name, new Date().toISOString())
      done.push(migration.version)
    }
    return done
  })
  return run.immediate()
}
