import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { ClaimRequest } from '../../db/contracts/payment-claims.js'
import { createSqliteStore } from '../../db/sqlite/sqlite-store.js'
import { timedStore } from '../../db/timed-store.js'
import { trackClaims } from '../../lib/ops/claim-ledger.js'
import { testFolder } from '../fixtures/test-folder.js'

const request = (signature: string, claimId: string): ClaimRequest =>
  ({ signature, claimId, flow: 'proof', service: 'fetch-price', payer: 'payer', amount: 50_000n, resource: '/api/fetch-price/SOL', leaseMs: 5000 })

function open (t: Test) {
  const store = createSqliteStore(join(testFolder(t), 'timed.db'))
  t.teardown(() => store.close())
  const observed: string[] = []
  const timed = timedStore(store, (operation, durationMs) => {
    if (!(durationMs >= 0)) throw new Error(`${operation} took ${durationMs} ms`)
    observed.push(operation)
  })
  return { store, timed, observed }
}

t.test('a timed store is a new store around the engine\'s, which stays as it was', async t => {
  const { store, timed, observed } = open(t)
  const engineClaims = { ...store.claims }
  const engineAudit = { ...store.audit }
  t.not(timed, store)
  t.not(timed.claims, store.claims, 'claims: a new object')
  t.not(timed.audit, store.audit, 'audit: a new object')
  t.equal(timed.db, store.db, 'the engine\'s own properties are kept')
  t.equal(timed.registry, store.registry)
  t.equal(timed.reputation, store.reputation)
  t.equal(timed.engine, 'sqlite')
  t.equal(await timed.isHealthy(), true)

  t.same(await timed.claims.claim(request('s1', 'c1')), { claimed: true, sent: false })
  t.same(await timed.claims.status('s1'), { status: 'pending', flow: 'proof' })
  t.equal(await timed.claims.renew('s1', 'c1', 5000), true)
  t.equal(await timed.claims.markSent({ signature: 's1', claimId: 'c1', leaseMs: 5000, source: 'source-1', holdMs: 5000 }), 'sent')
  t.equal(await timed.claims.release('s1', 'c1'), true)
  t.same(await timed.claims.claim(request('s1', 'c2')), { claimed: true, sent: true }, 'the sent claim is taken over')
  t.equal(await timed.claims.redeem({ signature: 's1', claimId: 'c2' }), true)
  t.same(await timed.claims.claim(request('s2', 'c3')), { claimed: true, sent: false })
  t.equal(await timed.claims.discard('s2', 'c3'), true)
  await timed.audit.record({ requestId: 'r1', service: 'fetch-price', resource: '/api/fetch-price/SOL', outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 3 })
  timed.audit.countUnpaid('fetch-price', 'PAYMENT_REQUIRED')
  await timed.audit.flushUnpaid()
  t.equal(await timed.audit.prune(90), 0)
  t.same(observed, ['claims.claim', 'claims.status', 'claims.renew', 'claims.markSent', 'claims.release', 'claims.claim', 'claims.redeem',
    'claims.claim', 'claims.discard', 'audit.record'], 'each claim operation and audit record, by name; nothing else')
  t.equal(store.db.prepare('SELECT count(*) FROM audit_log').pluck().get(), 1, 'the calls reached the engine')
  t.equal(store.db.prepare('SELECT sum(count) FROM unpaid_counts').pluck().get(), 1)

  t.same(Object.keys(store.claims), Object.keys(engineClaims))
  for (const [name, method] of Object.entries(engineClaims)) t.equal(store.claims[name as keyof typeof engineClaims], method, `claims.${name} untouched`)
  for (const [name, method] of Object.entries(engineAudit)) t.equal(store.audit[name as keyof typeof engineAudit], method, `audit.${name} untouched`)
})

t.test('a failed call is timed too, and fails the same', async t => {
  const { store, timed, observed } = open(t)
  await store.close()
  await t.rejects(timed.claims.status('s1'), /not open/)
  t.same(observed, ['claims.status'])
})

t.test('the claim ledger wraps the timed claims in place: its calls are timed, and it sees every claim', async t => {
  const { timed, observed } = open(t)
  const claims = timed.claims
  const ledger = trackClaims(timed.claims)
  t.equal(timed.claims, claims, 'the same object, now tracked')
  t.same(await timed.claims.claim(request('s1', 'c1')), { claimed: true, sent: false })
  t.equal(ledger.held, 1)
  t.equal(await ledger.releaseAll(), 1)
  t.equal(await timed.claims.status('s1'), undefined, 'given back')
  t.same(observed, ['claims.claim', 'claims.release', 'claims.status'])
})
