import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { startBackgroundCheckpoint } from '../../db/sqlite/background-checkpoint.js'
import { createSqliteStore } from '../../db/sqlite/sqlite-store.js'

// The SQLite store folds its WAL into the database file from a worker thread: the service's
// connection never checkpoints (a commit on the event loop only appends to the WAL), the file
// still receives what was written, and closing the store leaves no WAL behind.
const dir = mkdtempSync(join(tmpdir(), 'checkpoint-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

/** Writes `rows` audit rows of about 1 KB each: far more pages than one checkpoint interval needs. */
async function writeRows (store: ReturnType<typeof createSqliteStore>, rows: number, tag: string): Promise<void> {
  for (let i = 0; i < rows; i++) {
    await store.audit.record({
      requestId: `${tag}-${i}`,
      service: 'fetch-price',
      resource: `/api/fetch-price/${'x'.repeat(1000)}`,
      payer: 'payer',
      signature: `${tag}-sig-${i}`,
      amount: 50_000n,
      outcome: 'DELIVERED',
      verified: true,
      status: 200,
      latencyMs: 1,
      flow: 'x402-v2'
    })
  }
}

t.test('the connection leaves checkpoints to the worker, and the file receives the writes', async t => {
  const path = join(dir, 'store.db')
  const store = createSqliteStore(path)
  t.equal(store.db.pragma('wal_autocheckpoint', { simple: true }), 0, 'the service connection never checkpoints on commit')
  const before = statSync(path).size
  await writeRows(store, 3000, 'a')
  t.ok(statSync(`${path}-wal`).size > 1_000_000, 'the writes went to the WAL')
  // The worker checkpoints every second; under load allow it a while.
  const deadline = Date.now() + 20_000
  while (statSync(path).size <= before + 1_000_000 && Date.now() < deadline) await sleep(100)
  t.ok(statSync(path).size > before + 1_000_000, `the database file grew from ${before} B to ${statSync(path).size} B without a checkpoint of the connection's`)
  t.equal(store.db.prepare('SELECT count(*) FROM audit_log').pluck().get(), 3000, 'every row readable')
  await store.close()
  t.notOk(existsSync(`${path}-wal`), 'closing the store removed the WAL: the last connection folded it in')
  const reopened = createSqliteStore(path)
  t.equal(reopened.db.prepare('SELECT count(*) FROM audit_log').pluck().get(), 3000, 'every row there after reopening')
  await reopened.close()
})

t.test('an in-memory store has no WAL and no worker', async t => {
  const store = createSqliteStore(':memory:')
  await writeRows(store, 10, 'm')
  t.equal(store.db.prepare('SELECT count(*) FROM audit_log').pluck().get(), 10)
  await store.close()
  t.notOk(store.db.open, 'closed')
})

t.test('the worker never makes a database: a file gone before it opens is reported, and the worker ends', async t => {
  const path = join(dir, 'gone.db')
  const failures: string[] = []
  let onGone = () => {}
  const endedInTime = new Promise<boolean>(resolve => {
    // The timer also keeps this process alive meanwhile: the worker is unref'd and never does.
    const timer = setTimeout(() => resolve(false), 20_000)
    onGone = () => { clearTimeout(timer); resolve(true) }
  })
  const checkpoint = startBackgroundCheckpoint(path, { failed: message => failures.push(message), gone: () => onGone() })
  t.ok(await endedInTime, 'the worker ended by itself (the connection then checkpoints on commit again)')
  t.equal(failures.length, 1, `the failure reported once (${failures.join('; ')})`)
  t.notOk(existsSync(path), 'no empty database left where the file was')
  await checkpoint.stop()
})
