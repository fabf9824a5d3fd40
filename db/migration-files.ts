import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Numbered SQL files (001-name.sql, ...) of one engine's folder under db/migrations/, in the
 * order they apply. Each engine's runner (sqlite/migrate.ts, postgres/migrate.ts) reads its own.
 */
export function listMigrations (dir: string): Array<{ version: number, name: string, sql: string }> {
  return readdirSync(dir)
    .filter(file => /^\d{3}-[\w-]+\.sql$/.test(file))
    .sort()
    .map(file => ({ version: Number(file.slice(0, 3)), name: file, sql: readFileSync(join(dir, file), 'utf8') }))
}
