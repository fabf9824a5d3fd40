// How long GET /reputation takes over a million audit rows. Writes 1,000,000 rows spread over the
// default retention (90 days) into a temporary SQLite file through the real audit log (so the
// triggers of 003-reputation.sql fire), then times the report per window, in process and through
// the whole Fastify app (inject), against a direct scan of audit_log as the baseline it replaces.
// Also prints what the triggers cost per audit insert and what pruning a day of rows costs.
// Run: npx tsx packages/bench/reputation.ts [rows=1000000] [runs=15]
import fp from 'fastify-plugin'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app, { createServer } from '../../app.js'
import { loadConfig } from '../../config.js'
import type { AuditEntry } from '../../db/contracts/audit-log.js'
import { createAuditLog } from '../../db/sqlite/audit-log.js'
import { openDatabase, type SqliteDatabase } from '../../db/sqlite/open-database.js'
import { createReputationQueries } from '../../db/sqlite/reputation-queries.js'
import { CATALOGUE } from '../../lib/catalogue/catalogue.js'
import { createReputation, WINDOW_MS } from '../../lib/reputation/reputation-report.js'
import type { ReputationWindowName } from '../../schemas/reputation.js'

const ROWS = Number(process.argv[2] ?? 1_000_000)
const RUNS = Number(process.argv[3] ?? 15)
const DAY_MS = 86_400_000
const SPAN_MS = 90 * DAY_MS
const PAYERS = 5000
const WINDOWS: ReputationWindowName[] = ['24h', '7d', '30d', 'all']

// Deterministic data: the same rows on every run.
let seed = 42
function random (): number {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const logNormal = (median: number, sigma: number) => median * Math.exp(sigma * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()))
const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const wallets = Array.from({ length: PAYERS }, () => Array.from({ length: 44 }, () => pick([...ALPHABET])).join(''))

function auditEntry (i: number, now: number): AuditEntry {
  const service = random() < 0.6 ? 'fetch-price' : 'analyze-token'
  const payer = pick(wallets)
  const roll = random()
  const base = { at: now - SPAN_MS + Math.floor(i * SPAN_MS / ROWS), requestId: `req-${i}`, service, resource: `/api/${service}/x`, payer, signature: `sig-${i}` }
  const price = service === 'fetch-price' ? 50_000n : 100_000n
  if (roll < 0.85) return { ...base, amount: price, outcome: 'DELIVERED', verified: true, status: 200, latencyMs: logNormal(service === 'fetch-price' ? 80 : 400, 0.6) }
  if (roll < 0.88) return { ...base, amount: price, outcome: pick(['UPSTREAM_TIMEOUT', 'HANDLER_FAILED', 'CLIENT_ABORTED']), verified: true, status: 504, latencyMs: logNormal(5000, 0.2) }
  return { ...base, amount: price / 2n, outcome: pick(['AMOUNT_TOO_LOW', 'PAYMENT_ALREADY_USED', 'PAYMENT_NOT_FOUND', 'RPC_UNAVAILABLE']), verified: false, status: 402, latencyMs: logNormal(40, 0.5) }
}

function insertRows (db: SqliteDatabase, count: number, now: number): number {
  const audit = createAuditLog(db)
  // SQLite's record runs synchronously inside its Promise, so the batch stays one transaction.
  const batch = db.transaction((from: number, to: number) => { for (let i = from; i < to; i++) audit.record(auditEntry(i, now)).catch(error => { throw error }) })
  const started = performance.now()
  for (let from = 0; from < count; from += 10_000) batch(from, Math.min(from + 10_000, count))
  return performance.now() - started
}

/** p50 and max of `runs` timed calls, after one untimed call that warms the caches. */
async function timeRuns (fn: () => unknown, runs = RUNS): Promise<{ p50: number, max: number }> {
  await fn()
  const times: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    await fn()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { p50: times[Math.floor(times.length / 2)], max: times[times.length - 1] }
}
const ms = (value: number) => `${value.toFixed(1)} ms`

// What the aggregates replace: the same figures read straight from audit_log.
function directScan (db: SqliteDatabase, from: number) {
  const outcomes = db.prepare(`SELECT service, outcome, verified, count(*), sum(iif(outcome = 'DELIVERED', CAST(amount AS INTEGER), 0)), avg(latency_ms)
    FROM audit_log WHERE at >= ? GROUP BY service, outcome, verified`).all(from)
  const payers = db.prepare('SELECT count(DISTINCT payer) FROM audit_log WHERE at >= ? AND verified = 1').pluck().get(from)
  const p95 = ['fetch-price', 'analyze-token'].map(service => {
    const requests = db.prepare('SELECT count(*) FROM audit_log WHERE service = ? AND at >= ?').pluck().get(service, from) as number
    return db.prepare('SELECT latency_ms FROM audit_log WHERE service = ? AND at >= ? ORDER BY latency_ms LIMIT 1 OFFSET ?')
      .pluck().get(service, from, Math.max(0, Math.ceil(requests * 0.95) - 1))
  })
  return { outcomes, payers, p95 }
}

const dir = mkdtempSync(join(tmpdir(), 'reputation-bench-'))
try {
  const now = Date.now()
  const path = join(dir, 'merchant.db')

  // Trigger cost per insert: the same rows into a file with and one without the triggers.
  const sample = Math.min(100_000, ROWS)
  const bare = openDatabase(join(dir, 'bare.db'))
  bare.exec('DROP TRIGGER reputation_audit_insert')
  const withoutTriggers = insertRows(bare, sample, now)
  bare.close()
  seed = 42
  const sampled = openDatabase(join(dir, 'sampled.db'))
  const withTriggers = insertRows(sampled, sample, now)
  sampled.close()
  console.log(`audit insert, ${sample} rows: ${(withoutTriggers * 1000 / sample).toFixed(1)} µs/row without the triggers, ${(withTriggers * 1000 / sample).toFixed(1)} µs/row with them`)

  seed = 42
  const db = openDatabase(path)
  const insertMs = insertRows(db, ROWS, now)
  const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()
  const megabytes = (tables: string) => `${((db.prepare('SELECT sum(pgsize) FROM dbstat WHERE name LIKE ?').pluck().get(tables) as number) / 1e6).toFixed(0)} MB`
  console.log(`inserted ${ROWS} rows in ${(insertMs / 1000).toFixed(1)} s; file ${(statSync(path).size / 1e6).toFixed(0)} MB, ` +
    `audit_log and its index ${megabytes('audit_log%')}, aggregates ${megabytes('reputation%')} ` +
    `(rows: counts ${count('reputation_counts')}, latency ${count('reputation_latency')}, payers ${count('reputation_payers')})`)
  db.pragma('wal_checkpoint(TRUNCATE)')

  const reputation = createReputation({ queries: createReputationQueries(db), merchant: { name: 'bench', paymentAddress: 'bench' }, tokenSymbol: 'USDC', services: CATALOGUE.products.map(product => product.name) })
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    SOLANA_NETWORK: 'localnet',
    SOLANA_RPC_URL: 'http://127.0.0.1:9',
    PRICE_API_URL: 'http://127.0.0.1:9',
    DATABASE_PATH: path,
    AUDIT_RETENTION_DAYS: '3650',
    MERCHANT_KEYPAIR_PATH: join(dir, 'merchant-keypair.json'),
    CREATE_KEYPAIR: 'true'
  })
  const server = createServer(config)
  await server.register(fp(app), { config, catalogue: CATALOGUE })
  await server.ready()

  console.log(`p50 (and max) of ${RUNS} runs per window (direct scan: 3 runs):`)
  for (const window of WINDOWS) {
    const inProcess = await timeRuns(() => reputation.report(window))
    const viaHttp = await timeRuns(async () => {
      const res = await server.inject({ url: '/reputation', query: { window } })
      if (res.statusCode !== 200) throw new Error(`GET /reputation answered ${res.statusCode}`)
    })
    const length = WINDOW_MS[window]
    const scan = await timeRuns(() => directScan(db, length === null ? 0 : now - length), 3)
    console.log(`  ${window.padEnd(4)} report ${ms(inProcess.p50)} (max ${ms(inProcess.max)}), ` +
      `GET /reputation ${ms(viaHttp.p50)} (max ${ms(viaHttp.max)}), direct scan of audit_log ${ms(scan.p50)}`)
  }
  await server.close()

  const prune = createAuditLog(db)
  const started = performance.now()
  const removed = await prune.prune(89, now)
  console.log(`prune of the oldest day: ${removed} rows in ${ms(performance.now() - started)}`)
  db.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
