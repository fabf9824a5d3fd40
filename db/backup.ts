import Database from 'better-sqlite3'
import { chmodSync, existsSync, statSync } from 'node:fs'

export interface BackupReport {
  source: string
  destination: string
  bytes: number
  tables: number
}

/**
 * A consistent copy of a live SQLite file through SQLite's online backup API: it copies pages
 * while the service keeps writing (WAL included) and restarts when a write lands mid-copy, so the
 * copy is one moment of the database. Copying the file itself while the service runs can catch
 * a half-applied write or miss what still sits in the WAL. The copy is checked
 * (integrity_check) and left readable by its owner only: it holds the audit log.
 */
export async function backupDatabase (source: string, destination: string): Promise<BackupReport> {
  if (!existsSync(source)) throw new Error(`no database at ${source}`)
  if (existsSync(destination)) throw new Error(`${destination} exists; choose a new file name`)
  const db = new Database(source, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    await db.backup(destination)
  } finally {
    db.close()
  }
  chmodSync(destination, 0o600)
  const copy = new Database(destination, { readonly: true })
  try {
    const integrity = copy.pragma('integrity_check', { simple: true })
    if (integrity !== 'ok') throw new Error(`the copy failed its integrity check: ${String(integrity)}`)
    const tables = copy.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number
    return { source, destination, bytes: statSync(destination).size, tables }
  } finally {
    copy.close()
  }
}
