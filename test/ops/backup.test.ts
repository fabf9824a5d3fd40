import Database from 'better-sqlite3'
import { execFile } from 'node:child_process'
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { createAuditLog } from '../../db/sqlite/audit-log.js'
import { openDatabase } from '../../db/sqlite/open-database.js'
import { PROJECT_ROOT } from '../../project.js'
import { testFolder } from '../fixtures/test-folder.js'

const TSX = join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs')

/** `npm run backup -- <destination>` as the README gives it, in its own process. */
async function backup (cwd: string, env: Record<string, string>, ...args: string[]) {
  return await new Promise<{ code: number, stdout: string, stderr: string }>(resolve => {
    execFile(process.execPath, [TSX, join(PROJECT_ROOT, 'scripts', 'backup-database.ts'), ...args], { cwd, env: { PATH: process.env.PATH, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
    })
  })
}

t.test('npm run backup: a consistent copy of the live database while it is written to', async (t) => {
  const dir = testFolder(t)
  const databasePath = join(dir, 'merchant.db')
  const db = openDatabase(databasePath)
  t.teardown(() => db.close())
  const audit = createAuditLog(db)
  const write = (i: number) => audit.record({ requestId: `r${i}`, service: 'fetch-price', resource: '/api/fetch-price/SOL', outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 1, amount: 50_000n, signature: `s${i}`, payer: 'p' })
  for (let i = 0; i < 5000; i++) write(i)

  // The service keeps writing (here, this process) while the backup runs in another.
  let written = 5000
  const writer = setInterval(() => { for (let i = 0; i < 200; i++) write(written++) }, 1)
  const destination = join(dir, 'backup.db')
  const run = await backup(dir, { DATABASE_PATH: databasePath }, destination)
  clearInterval(writer)
  t.equal(run.code, 0, run.stderr)
  t.match(JSON.parse(run.stdout), { source: databasePath, destination, bytes: Number })
  t.equal(statSync(destination).mode & 0o777, 0o600, 'the copy is readable by its owner only')

  const copy = new Database(destination, { readonly: true })
  t.teardown(() => copy.close())
  t.equal(copy.pragma('integrity_check', { simple: true }), 'ok')
  const rows = copy.prepare('SELECT count(*) FROM audit_log').pluck().get() as number
  t.ok(rows >= 5000 && rows <= written, `the copy holds one moment of the database (${rows} of ${written} rows)`)
  const ids = copy.prepare('SELECT request_id FROM audit_log ORDER BY id').pluck().all() as string[]
  t.same(ids, Array.from({ length: rows }, (_, i) => `r${i}`), 'a prefix of the writes, with no gap')
  t.ok(copy.prepare('SELECT count(*) FROM schema_migrations').pluck().get() as number > 0, 'the migrations table came along')

  const again = await backup(dir, { DATABASE_PATH: databasePath }, destination)
  t.equal(again.code, 1, 'an existing file is never overwritten')
  t.match(again.stderr, /exists; choose a new file name/)
})

t.test('npm run backup reads DATABASE_PATH from .env like the service, and needs a destination', async (t) => {
  const dir = testFolder(t)
  const db = openDatabase(join(dir, 'from-env.db'))
  db.close()
  writeFileSync(join(dir, '.env'), 'DATABASE_PATH=./from-env.db\n')
  const run = await backup(dir, {}, 'copy.db')
  t.equal(run.code, 0, run.stderr)
  t.equal((JSON.parse(run.stdout) as { source: string }).source, join(dir, 'from-env.db'))
  const usage = await backup(dir, {})
  t.equal(usage.code, 1)
  t.match(usage.stderr, /usage: npm run backup -- <destination file>/)
})
