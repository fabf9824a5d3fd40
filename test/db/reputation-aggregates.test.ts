import Database from 'better-sqlite3'
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { AuditEntry } from '../../db/contracts/audit-log.js'
import { listMigrations } from '../../db/migration-files.js'
import { createAuditLog } from '../../db/sqlite/audit-log.js'
import { applyMigrations, MIGRATIONS_DIR } from '../../db/sqlite/migrate.js'
import { openDatabase, type SqliteDatabase } from '../../db/sqlite/open-database.js'
import { createReputationQueries } from '../../db/sqlite/reputation-queries.js'
import { openPostgresStore } from '../../db/postgres/postgres-store.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { testFolder } from '../fixtures/test-folder.js'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const NOW = Date.UTC(2026, 9, 20, 10, 20, 30, 400)

// Deterministic pseudo-random rows: the same on every run.
function randomSource (seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

function randomEntries (count: number, seed: number, oldest: number): AuditEntry[] {
  const random = randomSource(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]
  return Array.from({ length: count }, (_, i) => {
    const verified = random() < 0.7
    const outcome = verified ? pick(['DELIVERED', 'DELIVERED', 'DELIVERED', 'UPSTREAM_TIMEOUT', 'CLIENT_ABORTED']) : pick(['AMOUNT_TOO_LOW', 'PAYMENT_EXPIRED', 'INVALID_PAYMENT_HEADER'])
    const latency = random() < 0.01 ? 2e7 * (1 + random()) : Math.round(10 ** (random() * 6 - 2) * 1000) / 1000
    return {
      at: oldest + Math.floor(random() * (NOW - oldest)),
      requestId: `req-${seed}-${i}`,
      service: pick(['fetch-price', 'analyze-token', 'retired-service']),
      resource: '/x',
      payer: random() < 0.05 ? undefined : `payer-${Math.floor(random() * 40)}`,
      amount: random() < 0.1 ? undefined : BigInt(Math.floor(random() * 200_000)),
      outcome,
      verified,
      status: outcome === 'DELIVERED' ? 200 : 402,
      latencyMs: latency
    }
  })
}

async function record (db: SqliteDatabase, entries: AuditEntry[]) {
  const audit = createAuditLog(db)
  db.exec('BEGIN')
  for (const entry of entries) await audit.record(entry)
  db.exec('COMMIT')
}

/** Rows as a schema before 006 (no flow column) had them written. */
function recordBeforeFlow (db: SqliteDatabase, entries: AuditEntry[]) {
  const insert = db.prepare(`INSERT INTO audit_log (at, request_id, service, resource, payer, signature, amount, outcome, verified, status, latency_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  db.transaction(() => {
    for (const e of entries) {
      insert.run(e.at ?? Date.now(), e.requestId, e.service, e.resource, e.payer ?? null, e.signature ?? null, e.amount?.toString() ?? null, e.outcome, e.verified ? 1 : 0, e.status, e.latencyMs)
    }
  })()
}

/** The figures straight from the audit rows, with the histogram buckets worked out here. */
function figuresFromRows (db: SqliteDatabase, from: number) {
  const bounds = db.prepare('SELECT upper_ms FROM reputation_latency_buckets ORDER BY upper_ms').pluck().all() as number[]
  const rows = db.prepare('SELECT * FROM audit_log WHERE at >= ?').all(from) as Array<{ at: number, service: string, payer: string | null, amount: string | null, outcome: string, verified: number, latency_ms: number }>
  const outcomes = new Map<string, { service: string, outcome: string, verified: boolean, requests: number, revenue: bigint, latencyUs: number }>()
  const latency = new Map<string, { service: string, upperMs: number, requests: number }>()
  for (const row of rows) {
    const key = `${row.service} ${row.outcome} ${row.verified}`
    const figures = outcomes.get(key) ?? { service: row.service, outcome: row.outcome, verified: row.verified === 1, requests: 0, revenue: 0n, latencyUs: 0 }
    figures.requests++
    if (row.outcome === 'DELIVERED') figures.revenue += BigInt(row.amount ?? 0)
    figures.latencyUs += Math.round(row.latency_ms * 1000)
    outcomes.set(key, figures)
    const upperMs = bounds.find(bound => bound >= row.latency_ms) ?? row.latency_ms
    const bucket = latency.get(`${row.service} ${upperMs}`) ?? { service: row.service, upperMs, requests: 0 }
    bucket.requests++
    latency.set(`${row.service} ${upperMs}`, bucket)
  }
  const ats = rows.map(row => row.at)
  return {
    outcomes: [...outcomes.values()].map(({ latencyUs, revenue, ...rest }) => ({ ...rest, revenue: revenue.toString(), latencyMsSum: latencyUs / 1000 })),
    latency: [...latency.values()],
    uniquePayers: new Set(rows.filter(row => row.verified === 1 && row.payer !== null).map(row => row.payer)).size,
    firstAt: ats.length === 0 ? null : Math.min(...ats),
    lastAt: ats.length === 0 ? null : Math.max(...ats)
  }
}

const byKey = <T extends { service: string }>(items: T[], key: (item: T) => string) => [...items].sort((a, b) => key(a).localeCompare(key(b)))

// Window starts: the whole log, the report windows, and starts on an hour, on a day and on a row.
const STARTS = [0, NOW - DAY_MS, NOW - 7 * DAY_MS, NOW - 30 * DAY_MS, NOW - NOW % HOUR_MS - 5 * HOUR_MS, NOW - NOW % DAY_MS - 3 * DAY_MS]

async function checkAgainstRows (t: Test, db: SqliteDatabase, label: string) {
  const queries = createReputationQueries(db)
  const rowStart = db.prepare('SELECT at FROM audit_log ORDER BY id LIMIT 1 OFFSET 7').pluck().get() as number | undefined
  for (const from of rowStart === undefined ? STARTS : [...STARTS, rowStart]) {
    const read = await queries.read(from)
    const expected = figuresFromRows(db, from)
    const outcomeKey = (row: { service: string, outcome: string, verified: boolean }) => `${row.service} ${row.outcome} ${row.verified}`
    const bucketKey = (row: { service: string, upperMs: number }) => `${row.service} ${String(row.upperMs).padStart(12, '0')}`
    t.same({
      ...read,
      outcomes: byKey(read.outcomes.map(row => ({ ...row, revenue: row.revenue.toString() })), outcomeKey),
      latency: byKey(read.latency, bucketKey)
    }, {
      ...expected,
      outcomes: byKey(expected.outcomes, outcomeKey),
      latency: byKey(expected.latency, bucketKey)
    }, `${label}, from ${from === 0 ? 'the start' : new Date(from).toISOString()}`)
  }
}

t.test('the aggregates give the figures of the rows, for any window, through inserts, pruning and deletes', async t => {
  const db = openDatabase(join(testFolder(t), 'merchant.db'))
  t.teardown(() => db.close())
  await checkAgainstRows(t, db, 'empty log')

  await record(db, randomEntries(3000, 1, NOW - 40 * DAY_MS))
  await checkAgainstRows(t, db, 'after inserts')

  t.ok(await createAuditLog(db).prune(20, NOW) > 1000, 'pruning removed the older half')
  await checkAgainstRows(t, db, 'after retention pruning')

  // Deletes out of time order: payers lose their newest rows while older ones remain.
  db.exec('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log ORDER BY at DESC LIMIT 200)')
  db.exec('DELETE FROM audit_log WHERE id % 3 = 0')
  await checkAgainstRows(t, db, 'after deletes out of time order')

  await record(db, randomEntries(500, 2, NOW - 2 * DAY_MS))
  await checkAgainstRows(t, db, 'after more inserts')
})

t.test('the migration computes the aggregates of the rows written before it', async t => {
  const dir = testFolder(t)
  const earlier = join(dir, 'earlier-migrations')
  mkdirSync(earlier)
  for (const migration of listMigrations(MIGRATIONS_DIR).filter(m => m.version < 3)) copyFileSync(join(MIGRATIONS_DIR, migration.name), join(earlier, migration.name))
  const db = new Database(join(dir, 'merchant.db'))
  t.teardown(() => db.close())
  applyMigrations(db, earlier)
  recordBeforeFlow(db, randomEntries(1000, 3, NOW - 40 * DAY_MS))

  t.ok(applyMigrations(db).includes(3), '003 applied over existing rows')
  await checkAgainstRows(t, db, 'after the migration')
})

t.test('audit rows cannot be updated, since the aggregates count them as written', async t => {
  const db = openDatabase(join(testFolder(t), 'merchant.db'))
  t.teardown(() => db.close())
  await record(db, randomEntries(1, 4, NOW - DAY_MS))
  t.throws(() => db.exec("UPDATE audit_log SET outcome = 'DELIVERED'"), /audit_log rows are never updated/)
})

t.test('PostgreSQL keeps the same aggregates: its figures equal SQLite\'s for any window, through inserts, pruning and deletes', async t => {
  const server = await startTestPostgres(t)
  const store = await openPostgresStore({ url: await server.createDatabase(t), poolSize: 4 })
  t.teardown(() => store.close())
  const db = openDatabase(join(testFolder(t), 'merchant.db'))
  t.teardown(() => db.close())
  const sqlite = createReputationQueries(db)

  async function same (label: string) {
    for (const from of STARTS) {
      const [expected, read] = [await sqlite.read(from), await store.reputation.read(from)]
      const outcomeKey = (row: { service: string, outcome: string, verified: boolean }) => `${row.service} ${row.outcome} ${row.verified}`
      const bucketKey = (row: { service: string, upperMs: number }) => `${row.service} ${String(row.upperMs).padStart(12, '0')}`
      const normal = (figures: typeof read) => ({
        ...figures,
        outcomes: byKey(figures.outcomes.map(row => ({ ...row, revenue: row.revenue.toString(), latencyMsSum: Math.round(row.latencyMsSum * 1000) })), outcomeKey),
        latency: byKey(figures.latency, bucketKey)
      })
      t.same(normal(read), normal(expected), `${label}, from ${from === 0 ? 'the start' : new Date(from).toISOString()}`)
    }
  }
  async function both (entries: AuditEntry[]) {
    await record(db, entries)
    for (const entry of entries) await store.audit.record(entry)
  }

  await same('empty log')
  await both(randomEntries(1500, 5, NOW - 40 * DAY_MS))
  await same('after inserts')
  const pruned = await store.audit.prune(20, NOW, 400)
  t.equal(pruned, 400, 'a bounded batch')
  let more = pruned
  for (let batch = 400; batch === 400; more += batch) batch = await store.audit.prune(20, NOW, 400)
  t.equal(more, await createAuditLog(db).prune(20, NOW), 'the same rows pruned')
  await same('after retention pruning')

  for (const sql of ['DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log ORDER BY at DESC LIMIT 100)', 'DELETE FROM audit_log WHERE id % 3 = 0']) {
    db.exec(sql)
    await store.pool.query(sql)
  }
  await same('after deletes out of time order')
  await t.rejects(store.pool.query("UPDATE audit_log SET outcome = 'DELIVERED'"), /audit_log rows are never updated/)
})
