import t from 'tap'
import pg from 'pg'
import type { ClaimRequest } from '../../db/contracts/payment-claims.js'
import { listMigrations } from '../../db/migration-files.js'
import { POSTGRES_MIGRATIONS_DIR } from '../../db/postgres/migrate.js'
import { openPostgresStore, type PostgresStore } from '../../db/postgres/postgres-store.js'
import type { SqliteStore } from '../../db/sqlite/sqlite-store.js'
import type { Store } from '../../db/store.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, sentMark, storeTarget } from '../fixtures/stores.js'

// The same store semantics on both engines, each with several instances (own connections or
// pools) on one shared database: what several processes or machines see.
const postgres = lazyPostgres(t, startTestPostgres)
const LEASE_MS = 5000
const T0 = Date.UTC(2026, 9, 20, 10, 0, 0)

let count = 0
function request (signature: string, extra: Partial<ClaimRequest> = {}): ClaimRequest {
  return { signature, claimId: `claim-${count++}`, flow: 'proof', service: 'fetch-price', payer: 'payer', amount: 50_000n, resource: '/api/fetch-price/SOL', leaseMs: LEASE_MS, ...extra }
}
const mark = (signature: string, claimId: string, now?: number, source?: string) => sentMark(signature, claimId, LEASE_MS, now, source)

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
      t.ok(results.every(result => result.claimed || ('status' in result && result.status === 'pending')), 'the others: in progress (409 PAYMENT_IN_PROGRESS)')
      const losers = attempts.filter((_, i) => !results[i].claimed)
      t.same(await Promise.all(losers.slice(0, 5).map(async ({ store, request }) => await store.claims.redeem({ signature: request.signature, claimId: request.claimId }))),
        [false, false, false, false, false], 'a loser cannot redeem')
      const winner = winners[0]
      t.equal(await instances[(instances.indexOf(winner.store) + 1) % 3].claims.redeem({ signature: 'race', claimId: winner.request.claimId }), true, 'the claim redeems from any instance')
      t.equal(await winner.store.claims.redeem({ signature: 'race', claimId: winner.request.claimId }), false, 'once')
      for (const store of instances) {
        t.equal((await store.claims.status('race'))?.status, 'redeemed')
        t.same(await store.claims.claim(request('race')), { claimed: false, status: 'redeemed', flow: 'proof' }, 'spent for good (402 PAYMENT_ALREADY_USED)')
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
        results[i].claimed ? await store.claims.redeem({ signature: request.signature, claimId: request.claimId }) : false))
      t.equal(redeemed.filter(Boolean).length, signatures.length, 'every winner redeems')
    })

    t.test('a failed delivery releases the proof; another instance then claims it', async t => {
      const first = request('released')
      t.same(await a.claims.claim(first), { claimed: true, sent: false })
      t.equal(await b.claims.release('released', 'someone-else'), false, 'only the holder releases')
      t.equal(await a.claims.release('released', first.claimId), true)
      t.equal((await c.claims.status('released'))?.status, undefined, 'as if never claimed')
      const second = request('released')
      t.same(await c.claims.claim(second), { claimed: true, sent: false })
      t.equal(await a.claims.redeem({ signature: 'released', claimId: first.claimId }), false, 'the released claim cannot deliver')
      t.equal(await c.claims.redeem({ signature: 'released', claimId: second.claimId }), true)
      t.equal(await c.claims.release('released', second.claimId), false, 'a redeemed proof is never given back')
    })

    t.test('a claim left by a killed instance is taken over once its lease ran out, not before', async t => {
      const dead = await target.open()
      const orphan = request('orphan', { now: T0 })
      t.same(await dead.claims.claim(orphan), { claimed: true, sent: false })
      await dead.close() // the instance dies holding the claim
      t.same(await a.claims.claim(request('orphan', { now: T0 + LEASE_MS - 1 })), { claimed: false, status: 'pending', flow: 'proof' }, 'leased: 409 PAYMENT_IN_PROGRESS')
      const heir = request('orphan', { now: T0 + LEASE_MS })
      t.same(await b.claims.claim(heir), { claimed: true, sent: false }, 'taken over when the lease ends')
      t.equal(await a.claims.redeem({ signature: 'orphan', claimId: orphan.claimId }), false, 'the dead claim can no longer deliver')
      t.equal(await a.claims.redeem({ signature: 'orphan', claimId: heir.claimId }), true)
    })

    t.test('leases on the clock the engine uses when no time is given', async t => {
      const short = request('clock', { leaseMs: 200 })
      t.same(await a.claims.claim(short), { claimed: true, sent: false })
      t.same(await b.claims.claim(request('clock', { leaseMs: 200 })), { claimed: false, status: 'pending', flow: 'proof' })
      await new Promise(resolve => setTimeout(resolve, 250))
      t.same(await b.claims.claim(request('clock', { leaseMs: 200 })), { claimed: true, sent: false })
    })

    t.test('amounts are exact past 2^64, in claims and in the reputation revenue', async t => {
      const huge = 2n ** 64n + 12_345n
      t.same(await a.claims.claim(request('huge', { amount: huge })), { claimed: true, sent: false })
      const entry = { requestId: 'r', service: 'analyze-token', resource: '/x', payer: 'whale', outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 3.5 }
      await a.audit.record({ ...entry, signature: 'huge', amount: huge, at: T0 })
      await b.audit.record({ ...entry, signature: 'huge2', amount: huge, at: T0 + 1 })
      const figures = await c.reputation.read(0)
      t.equal(figures.outcomes.find(o => o.service === 'analyze-token')?.revenue, 2n * huge)
      t.equal(figures.uniquePayers, 1)
    })

    t.test('settlement states: a sent claim is never released by its holder, only discarded on the chain\'s verdict', async t => {
      const held = request('sent', { flow: 'x402', now: T0 })
      t.same(await a.claims.claim(held), { claimed: true, sent: false })
      t.equal(await b.claims.markSent(mark('sent', 'someone-else', T0)), 'not-held', 'only the holder marks it sent')
      t.equal(await b.claims.markSent(mark('sent', held.claimId, T0 + 10)), 'sent', 'its source is free again: the refused mark gave it back')
      t.same(await c.claims.status('sent'), { status: 'sent', flow: 'x402' })
      t.equal(await a.claims.renew('sent', held.claimId, LEASE_MS, T0 + 20), true, 'the holder renews its lease')
      t.equal(await a.claims.renew('sent', 'someone-else', LEASE_MS, T0 + 20), false)
      t.same(await b.claims.claim(request('sent', { flow: 'x402', now: T0 + LEASE_MS + 10 })), { claimed: false, status: 'sent', flow: 'x402' }, 'renewed: still held (409)')
      t.equal(await a.claims.release('sent', held.claimId, T0 + 30), true, 'the holder gives up')
      t.same(await c.claims.status('sent'), { status: 'sent', flow: 'x402' }, 'the row stays: money may have moved')
      t.same(await b.claims.claim(request('sent', { flow: 'proof', now: T0 + 40 })), { claimed: false, status: 'sent', flow: 'x402' }, 'never taken through the other flow')
      const heir = request('sent', { flow: 'x402', now: T0 + 40 })
      t.same(await b.claims.claim(heir), { claimed: true, sent: true }, 'taken over at once, and told it may have been sent')
      t.equal(await a.claims.redeem({ signature: 'sent', claimId: held.claimId }), false, 'the old holder can no longer deliver')
      t.equal(await c.claims.discard('sent', held.claimId), false, 'nor discard')
      t.equal(await c.claims.discard('sent', heir.claimId), true, 'the chain said nothing moved: discarded')
      t.equal(await a.claims.status('sent'), undefined)
      const again = request('sent', { flow: 'x402' })
      t.same(await a.claims.claim(again), { claimed: true, sent: false })
      t.equal(await a.claims.releaseSource('source-of-sent', held.claimId), true)
      t.equal(await a.claims.markSent(mark('sent', again.claimId)), 'sent')
      t.equal(await b.claims.redeem({ signature: 'sent', claimId: again.claimId }), true, 'a sent claim redeems once it landed')
      t.equal(await b.claims.discard('sent', again.claimId), false, 'a redeemed claim is never discarded')
    })

    t.test('a cancelled MCP call: never marked sent; after settlement its kept answer is not reached until a re-delivery reaches the buyer', async t => {
      const answer = { requestKey: 'key', status: 200, contentType: 'application/json', body: '{}', receipt: { success: true }, retentionMs: LEASE_MS }
      const early = request('cancel-early', { flow: 'x402', callerRef: 'call-early' })
      t.same(await a.claims.claim(early), { claimed: true, sent: false })
      t.equal(await b.claims.cancelCall('call-early'), true, 'the notice finds the claim from another instance')
      t.equal(await a.claims.markSent(mark('cancel-early', early.claimId)), 'not-held', 'nothing is sent for a cancelled call')
      t.equal(await b.claims.cancelCall('nobody-calls-this'), false)

      const late = request('cancel-late', { flow: 'x402', callerRef: 'call-late' })
      await a.claims.claim(late)
      t.equal(await a.claims.markSent(mark('cancel-late', late.claimId)), 'sent')
      t.equal(await b.claims.cancelCall('call-late'), true, 'cancelled while settling')
      t.equal(await a.claims.redeem({ signature: 'cancel-late', claimId: late.claimId, answer }), true, 'the money moved: redeemed, its answer kept')
      const row = { requestId: 'r', service: 'analyze-token', resource: '/x', payer: 'payer', signature: 'cancel-late', outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 1 }
      await a.audit.record(row, { reached: true })
      t.equal((await c.claims.keptAnswer('cancel-late'))?.reached, false, 'the paying call\'s answer went out after the cancel: not reached')
      await c.audit.record(row, { reached: true, redelivered: true })
      t.equal((await a.claims.keptAnswer('cancel-late'))?.reached, true, 'a re-delivery reached the buyer: used')
    })

    t.test('one settlement in flight per source token account, across instances: held with the sent mark, in one operation', async t => {
      const [first, second, other] = [request('pays-1', { flow: 'x402' }), request('pays-2', { flow: 'x402' }), request('pays-3', { flow: 'x402' })]
      for (const held of [first, second, other]) await a.claims.claim(held)
      t.equal(await a.claims.markSent(mark('pays-1', first.claimId, T0, 'source-1')), 'sent')
      t.equal(await b.claims.markSent(mark('pays-2', second.claimId, T0 + 10, 'source-1')), 'source-busy', 'held: the other waits, not marked')
      t.same(await c.claims.status('pays-2'), { status: 'pending', flow: 'x402' })
      t.equal(await a.claims.markSent(mark('pays-1', first.claimId, T0 + 20, 'source-1')), 'sent', 'the holder may mark again')
      t.equal(await c.claims.markSent(mark('pays-3', other.claimId, T0, 'source-2')), 'sent', 'another source is free')
      t.equal(await b.claims.releaseSource('source-1', second.claimId), false, 'only the holder releases')
      t.equal(await b.claims.releaseSource('source-1', first.claimId), true)
      t.equal(await b.claims.markSent(mark('pays-2', second.claimId, T0 + 30, 'source-1')), 'sent', 'free once released')
      const late = request('pays-4', { flow: 'x402' })
      await c.claims.claim(late)
      t.equal(await c.claims.markSent(mark('pays-4', late.claimId, T0 + 30 + LEASE_MS, 'source-1')), 'sent', 'a crashed holder\'s hold ends by itself')
      const next = request('pays-6', { flow: 'x402' })
      await b.claims.claim(next)
      t.equal(await b.claims.markSent(mark('pays-6', next.claimId, T0 + 40 + LEASE_MS, 'source-1')), 'source-busy')
      t.equal(await a.claims.redeem({ signature: 'pays-4', claimId: late.claimId, releasing: 'source-1' }), true, 'the settlement landed: redeemed')
      t.equal(await b.claims.markSent(mark('pays-6', next.claimId, T0 + 40 + LEASE_MS, 'source-1')), 'sent', 'the redeem ended the hold')
      t.equal(await a.claims.markSent(mark('pays-5', 'nobody-holds-this', T0 + 40, 'source-3')), 'not-held', 'a mark refused holds nothing')
      const fifth = request('pays-5', { flow: 'x402' })
      await a.claims.claim(fifth)
      t.equal(await b.claims.markSent(mark('pays-5', fifth.claimId, T0 + 50, 'source-3')), 'sent', 'the source of a refused mark is free')
    })

    t.test('marks from one source at once over three instances: one is sent, the others wait', async t => {
      const claims = Array.from({ length: 12 }, (_, i) => request(`burst-${i}`, { flow: 'x402' }))
      for (const held of claims) await a.claims.claim(held)
      const results = await Promise.all(claims.map(async (held, i) => await instances[i % 3].claims.markSent(mark(held.signature, held.claimId, undefined, 'one-wallet'))))
      t.equal(results.filter(result => result === 'sent').length, 1, 'one settlement in flight')
      t.equal(results.filter(result => result === 'source-busy').length, 11)
    })

    t.test('a payment has one audit row: replays replace it, keeping the first attempt\'s time', async t => {
      const entry = { requestId: 'r', service: 'fetch-price', resource: '/x', payer: 'replayer', signature: 'replayed', amount: 50_000n, verified: true, status: 503, latencyMs: 2 }
      for (let i = 0; i < 20; i++) await instances[i % 3].audit.record({ ...entry, outcome: 'UPSTREAM_UNAVAILABLE', at: T0 + 100 + i })
      await a.audit.record({ ...entry, outcome: 'DELIVERED', status: 200, at: T0 + 500 })
      const rows = engine === 'sqlite'
        ? (a as SqliteStore).db.prepare("SELECT at, outcome FROM audit_log WHERE signature = 'replayed'").all()
        : (await (a as PostgresStore).pool.query("SELECT at::float8 AS at, outcome FROM audit_log WHERE signature = 'replayed'")).rows
      t.same(rows, [{ at: T0 + 100, outcome: 'DELIVERED' }])
      const figures = await c.reputation.read(0)
      const outcomes = figures.outcomes.filter(o => o.service === 'fetch-price')
      t.equal(outcomes.find(o => o.outcome === 'DELIVERED')?.requests, 1, 'the reputation counts the payment once')
      t.notOk(outcomes.find(o => o.outcome === 'UPSTREAM_UNAVAILABLE' && o.requests > 0), 'and not its failed attempts')
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
      t.equal(await a.audit.prune(1, T0 + 3 * 86_400_000), 3, 'retention removes the old audit rows (two payments above, one replayed)')
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
  t.same(rows, listMigrations(POSTGRES_MIGRATIONS_DIR).map(({ version }) => ({ version, n: 1 })), 'each migration recorded once')
  t.equal((await stores[3].claims.status('nothing'))?.status, undefined, 'every instance works')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())
  t.equal((await client.query("SELECT count(*)::int AS n FROM pg_trigger WHERE tgname = 'reputation_audit_insert'")).rows[0].n, 1)
})
