import type { ServiceSecrets } from '../contracts/service-secrets.js'
import type { SqliteDatabase } from './open-database.js'

/** Service secrets on SQLite: an insert that keeps the first, then the read. */
export function createServiceSecrets (db: SqliteDatabase): ServiceSecrets {
  const insert = db.prepare('INSERT INTO service_secrets (name, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING')
  const select = db.prepare<[string], string>('SELECT secret FROM service_secrets WHERE name = ?').pluck()
  return {
    async getOrKeep (name, made) {
      insert.run(name, made, Date.now())
      return select.get(name) as string
    }
  }
}
