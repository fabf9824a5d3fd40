import t from 'tap'
import pg from 'pg'
import type { ClaimRequest } from '../../db/payment-claims.js'
import { openPostgresStore, type PostgresStore } from '../../db/postgres/postgres-store.js'
import type { SqliteStore } from '../../db/sqlite-store.js'
import type { Store } from '../../db/store.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, storeTarget } from '../fixtures/stores.js'

// The same store semantics on both engines, each with several instances (own connections or
// pools) on one shared database: what several processes or machines see.
const postgres = lazyPostgres(t, startTestPostgres)
const LEASE_MS = 5000
const T0 = Date.UTC(2026, 9, 20, 10, 0, 0)

let count = 0
function request (signature: string, extra: Partial<ClaimRequest> = {}): ClaimRequest {
  return { signature, claimId: `claim-${count++}`, service: 'fetch-price', payer: 'payer', amount: 50_000n, resource: '/api/fetch-price/SOL', leaseMs: LEASE_MS, ...extra }
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const [a, b, c] = [await target.open(), await target.open(), await target.open()]
    const instances: Store[] = [a, b, c]

    t.test('one proof claimed 60 times at once over three instances: exactly one wins, and only it redeems', async t => {
      const attempts = Array.from({ length: 60 }, (_, i) => ({ store: instances[i % 3], request: request('race') }))
      const results = await Promise.all(attempts.map(async ({ store, request }) => await store.claims.claim(request)))
      const winners = attempts.filter((_, i) => results[i].claimed)
      t.equal(winners.length, 1, 'one claim')
      t.ok(results.every(result => result.claimed || result.status === 'pending'), 'the others: in progress (409 PAYMENT_IN_PROGRESS)')
      const losers = attempts.filter((_, i) => !results[i].claimed)
      t.same(await Promise.all(losers.slice(0, 5).map(async ({ store, request }) => await store.claims.redeem(request.signature, request.claimId))),
        [false, false, false, false, false], 'a loser cannot redeem')
      const winner = winners[0]
      t.equal(await instances[(instances.indexOf(winner.store) + 1) % 3].claims.redeem('race', winner.request.claimId), true, 'the claim redeems from any instance')
      t.equal(await winner.store.claims.redeem('race', winner.request.claimId), false, 'once')
      for (const store of instances) {
        t.equal(await store.claims.status('race'), 'redeemed')
        t.same(await store.claims.claim(request('race')), { claimed: false, status: 'redeemed' }, 'spent for good (402 PAYMENT_ALREADY_USED)')
      }
    })

    t.test('many proofs at once over three instances: each claimed and redeemed exactly once', async t => {
      const signatures = Array.from({ length: 40 }, (_, i) => `many-${i}`)
      const attempts = signatures.flatMap(signature => instances.map(store => ({ store, request: request(signature) })))
      const results = await Promise.all(attempts.map(async ({ store, request }) => await store.claims.claim(request)))
      for (const signature of signatures) {
        t.equal(attempts.filter((attempt, i) => attempt.request.signature === signature && results[i].claimed).length, 1, `${signature}: one winner`)
      }
      const redeemed = await Promise.all(attempts.map(async ({ store, request }, i) =>
        results[i].claimed ? await store.claims.redeem(request.signature, request.claimId) : false))
      t.equal(redeemed.filter(Boolean).length, signatures.length, 'every winner redeems')
    })

    t.test('a failed delivery releases the proof; another instance then claims it', async t => {
      const first = request('released')
      t.same(await a.claims.claim(first), { claimed: true })
      t.equal(await b.claims.release('released', 'someone-else'), false, 'only the holder releases')
      t.equal(await a.claims.release('released', first.claimId), true)
      t.equal(await c.claims.status('released'), undefined, 'as if never claimed')
      const second = request('released')
      t.same(await c.claims.claim(second), { claimed: true })
      t.equal(await a.claims.redeem('released', first.claimId), false, 'the released claim cannot deliver')
      t.equal(await c.claims.redeem('released', second.claimId), true)
      t.equal(await c.claims.release('released', second.claimId), false, 'a redeemed proof is never given back')
    })

    t.test('a claim left by a killed instance is taken over once its lease ran out, not before', async t => {
      const dead = await target.open()
      const orphan = request('orphan', { now: T0 })
      t.same(await dead.claims.claim(orphan), { claimed: true })
      await dead.close() // the instance dies holding the claim
      t.same(await a.claims.claim(request('orphan', { now: T0 + LEASE_MS - 1 })), { claimed: false, status: 'pending' }, 'leased: 409 PAYMENT_IN_PROGRESS')
      const heir = request('orphan', { now: T0 + LEASE_MS })
      t.same(await b.claims.claim(heir), { claimed: true }, 'taken over when the lease ends')
      t.equal(await a.claims.redeem('orphan', orphan.claimId), false, 'the dead claim can no longer deliver')
      t.equal(await a.claims.redeem('orphan', heir.claimId), true)
    })

    t.test('leases on the clock the engine uses when no time is given', async t => {
      const short = request('clock', { leaseMs: 200 })
      t.same(await a.claims.claim(short), { claimed: true })
      t.same(await b.claims.claim(request('clock', { leaseMs: 200 })), { claimed: false, status: 'pending' })
      await new Promise(resolve => setTimeout(resolve, 250))
      t.same(await b.claims.claim(request('clock', { leaseMs: 200 })), { claimed: true })
    })

    t.test('amounts are exact past 2^64, in claims and in the reputation revenue', async t => {
      const huge = 2n ** 64n + 12_345n
      t.same(await a.claims.claim(request('huge', { amount: huge })), { claimed: true })
      const entry = { requestId: 'r', service: 'analyze-token', resource: '/x', payer: 'whale', outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 3.5 }
      await a.audit.record({ ...entry, signature: 'huge', amount: huge, at: T0 })
      await b.audit.record({ ...entry, signature: 'huge2', amount: huge, at: T0 + 1 })
      const figures = await c.reputation.read(0)
      t.equal(figures.outcomes.find(o => o.service === 'analyze-token')?.revenue, 2n * huge)
      t.equal(figures.uniquePayers, 1)
    })

    t.test('unpaid counters from several instances add up', async t => {
      for (const store of instances) {
        store.audit.countUnpaid('fetch-price', 'PAYMENT_REQUIRED', T0)
        store.audit.countUnpaid('fetch-price', 'PAYMENT_REQUIRED', T0)
        await store.audit.flushUnpaid()
      }
      const counted = engine === 'sqlite'
        ? (a as SqliteStore).db.prepare("SELECT count FROM unpaid_counts WHERE outcome = 'PAYMENT_REQUIRED'").pluck().get()
        : (await (a as PostgresStore).pool.query("SELECT count FROM unpaid_counts WHERE outcome = 'PAYMENT_REQUIRED'")).rows[0].count
      t.equal(counted, 6)
      t.equal(await a.audit.prune(1, T0 + 3 * 86_400_000), 2, 'retention removes the old audit rows')
    })

    // Across instances on PostgreSQL (an advisory lock); within the process on SQLite, where the
    // processes of one machine may each run the task (their transactions keep that harmless).
    t.test(`exclusive: tasks under one name never overlap${engine === 'postgres' ? ', across instances' : ''}`, async t => {
      let running = 0
      let most = 0
      const lockers = engine === 'postgres' ? instances : [a, a, a]
      await Promise.all(lockers.flatMap(store => [1, 2].map(async () => await store.exclusive('test-lock', async () => {
        most = Math.max(most, ++running)
        await new Promise(resolve => setTimeout(resolve, 20))
        running--
      }))))
      t.equal(most, 1)
    })

    t.test('health', async t => {
      t.equal(await a.isHealthy(), true)
    })
  })
}

t.test('postgres: instances starting together against an empty database apply the migrations once', async t => {
  const url = await (await postgres()).createDatabase(t)
  const stores = await Promise.all(Array.from({ length: 4 }, async () => await openPostgresStore({ url, poolSize: 2 })))
  t.teardown(async () => { for (const store of stores) await store.close() })
  const { rows } = await stores[0].pool.query('SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version')
  t.same(rows, [{ version: 1, n: 1 }], 'each migration recorded once')
  t.equal(await stores[3].claims.status('nothing'), undefined, 'every instance works')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())
  t.equal((await client.query("SELECT count(*)::int AS n FROM pg_trigger WHERE tgname = 'reputation_audit_insert'")).rows[0].n, 1)
})
