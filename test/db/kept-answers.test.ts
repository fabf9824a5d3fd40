import { statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { AuditEntry } from '../../db/contracts/audit-log.js'
import type { AnswerToKeep, ClaimRequest } from '../../db/contracts/payment-claims.js'
import type { PostgresStore } from '../../db/postgres/postgres-store.js'
import { createSqliteStore, type SqliteStore } from '../../db/sqlite/sqlite-store.js'
import type { Store } from '../../db/store.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, sentMark, storeTarget } from '../fixtures/stores.js'
import { testFolder } from '../fixtures/test-folder.js'

// Kept answers, payment-identifiers and MCP cancel marks: the same semantics on both engines,
// over three instances sharing one database.
const postgres = lazyPostgres(t, startTestPostgres)
const LEASE_MS = 5000
const RETENTION_MS = 3_600_000
const T0 = Date.UTC(2026, 10, 25, 10, 0, 0)

let count = 0
function request (signature: string, extra: Partial<ClaimRequest> = {}): ClaimRequest {
  return { signature, claimId: `claim-${count++}`, flow: 'x402', service: 'analyze-token', payer: 'payer', amount: 100_000n, resource: '/api/analyze-token/x', leaseMs: LEASE_MS, now: T0, ...extra }
}

function answer (body: string, extra: Partial<AnswerToKeep> = {}): AnswerToKeep {
  return { requestKey: 'key', status: 200, contentType: 'application/json; charset=utf-8', body, receipt: { success: true, transaction: 'tx' }, retentionMs: RETENTION_MS, ...extra }
}

/** The audit row of a delivered payment, as the delivery core writes it after the answer. */
function delivered (signature: string, extra: Partial<AuditEntry> = {}): AuditEntry {
  return { requestId: 'r', service: 'analyze-token', resource: '/api/analyze-token/x', payer: 'payer', signature, amount: 100_000n, outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 4, flow: 'x402-v2', ...extra }
}

/** The outcomes of a payment's audit rows, read where the engine keeps them. */
async function auditOutcomes (store: Store, signature: string): Promise<string[]> {
  if (store.engine === 'sqlite') return (store as SqliteStore).db.prepare('SELECT outcome FROM audit_log WHERE signature = ?').pluck().all(signature) as string[]
  return (await (store as PostgresStore).pool.query<{ outcome: string }>('SELECT outcome FROM audit_log WHERE signature = $1', [signature])).rows.map(row => row.outcome)
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const instances: Store[] = [await target.open(), await target.open(), await target.open()]
    const [a, b, c] = instances

    t.test('a redeem keeps its answer in the same operation; only the holder\'s redeem does', async t => {
      const first = request('kept')
      t.equal((await a.claims.claim(first)).claimed, true)
      t.equal(await b.claims.redeem({ signature: 'kept', claimId: 'not-the-holder', now: T0, answer: answer('{"no":1}') }), false, 'another claim id redeems nothing')
      t.equal(await b.claims.keptAnswer('kept', T0), undefined, 'and keeps nothing')
      t.equal(await c.claims.redeem({ signature: 'kept', claimId: first.claimId, now: T0, answer: answer('{"yes":1}') }), true)
      t.match(await a.claims.keptAnswer('kept', T0 + 1), {
        signature: 'kept', requestKey: 'key', status: 200, body: '{"yes":1}', receipt: { success: true, transaction: 'tx' }, reached: null, payer: 'payer', amount: 100_000n, service: 'analyze-token', keptAt: T0, expiresAt: T0 + RETENTION_MS
      })
      t.equal((await a.claims.keptAnswer('kept', T0 + 1))?.reached, null, 'not known until its delivery says')
      await b.audit.record(delivered('kept'), { reached: true })
      t.equal((await c.claims.keptAnswer('kept', T0 + 1))?.reached, true, 'reached once marked')
      await b.audit.record(delivered('kept', { outcome: 'CLIENT_ABORTED_AFTER_PAYMENT' }), { reached: false })
      t.equal((await c.claims.keptAnswer('kept', T0 + 1))?.reached, true, 'a reached answer is never marked lost after')
      t.equal(await a.claims.keptAnswer('kept', T0 + RETENTION_MS), undefined, 'gone from view when its retention ends')
      t.equal(await a.claims.redeem({ signature: 'kept', claimId: first.claimId, now: T0, answer: answer('{"again":1}') }), false, 'spent: not redeemed twice')
    })

    t.test('a cancel notice: before the mark nothing can be sent and the claim goes; after settlement the answer counts as not reached', async t => {
      const early = request('cancel-early', { callerRef: 'call-1' })
      t.equal((await a.claims.claim(early)).claimed, true)
      t.equal(await b.claims.cancelCall('call-1'), true)
      t.equal(await c.claims.cancelCall('no-such-call'), false)
      t.equal(await a.claims.markSent(sentMark('cancel-early', early.claimId, LEASE_MS)), 'not-held', 'a cancelled call is never marked sent')
      t.equal(await a.claims.release('cancel-early', early.claimId), true)
      t.equal(await a.claims.status('cancel-early'), undefined, 'released: the payment buys another call')

      const late = request('cancel-late', { callerRef: 'call-2' })
      t.equal((await a.claims.claim(late)).claimed, true)
      t.equal(await a.claims.markSent(sentMark('cancel-late', late.claimId, LEASE_MS)), 'sent')
      t.equal(await a.claims.redeem({ signature: 'cancel-late', claimId: late.claimId, now: T0, answer: answer('{}') }), true)
      await a.audit.record(delivered('cancel-late'), { reached: true })
      t.equal(await b.claims.cancelCall('call-2'), true)
      t.equal((await c.claims.keptAnswer('cancel-late', T0 + 1))?.reached, false, 'cancelled: the result did not reach its caller')
      await b.audit.record(delivered('cancel-late'), { reached: true, redelivered: true })
      t.equal((await a.claims.keptAnswer('cancel-late', T0 + 1))?.reached, true, 'a re-delivery reached the buyer: used, whatever the cancel')

      t.equal(await c.claims.cancelCall('call-4'), false, 'a notice for a call not claimed yet (it reached another instance first)')
      const noticed = request('cancel-first', { callerRef: 'call-4' })
      t.equal((await a.claims.claim(noticed)).claimed, true)
      t.equal(await b.claims.markSent(sentMark('cancel-first', noticed.claimId, LEASE_MS)), 'not-held', 'the claim taken after the notice starts cancelled')

      const retry = request('cancel-late', { callerRef: 'call-3' })
      t.same(await a.claims.claim(retry), { claimed: false, status: 'redeemed', flow: 'x402' }, 'a spent payment stays spent')
    })

    t.test('the audit row and the kept answer\'s fate are one operation, on any instance', async t => {
      const held = request('fate')
      await a.claims.claim(held)
      t.equal(await a.claims.redeem({ signature: 'fate', claimId: held.claimId, now: T0, answer: answer('{}') }), true)
      await b.audit.record(delivered('fate', { outcome: 'CLIENT_ABORTED_AFTER_PAYMENT', status: 499 }), { reached: false })
      t.equal((await c.claims.keptAnswer('fate', T0 + 1))?.reached, false, 'the client left: not reached, kept for re-delivery')
      t.same(await auditOutcomes(c, 'fate'), ['CLIENT_ABORTED_AFTER_PAYMENT'], 'with its row')
      await c.audit.record(delivered('fate'), { reached: true })
      t.equal((await a.claims.keptAnswer('fate', T0 + 1))?.reached, true, 'a re-delivery reached it')
      t.same(await auditOutcomes(a, 'fate'), ['DELIVERED'], 'the row replaced, still one')
      await a.audit.record(delivered('fate', { outcome: 'UPSTREAM_UNAVAILABLE', status: 503 }))
      t.equal((await b.claims.keptAnswer('fate', T0 + 1))?.reached, true, 'a record without a fate leaves the answer as it was')

      const failing = request('fate-failing')
      await a.claims.claim(failing)
      await a.claims.redeem({ signature: 'fate-failing', claimId: failing.claimId, now: T0, answer: answer('{}') })
      // A row the database refuses (outcome is NOT NULL): nothing of the operation is kept.
      await t.rejects(b.audit.record(delivered('fate-failing', { outcome: null as unknown as string }), { reached: true }))
      t.equal((await c.claims.keptAnswer('fate-failing', T0 + 1))?.reached, null, 'the mark went with the row that failed')
      t.same(await auditOutcomes(c, 'fate-failing'), [])

      await c.audit.record(delivered('fate-no-answer'), { reached: true })
      t.same(await auditOutcomes(a, 'fate-no-answer'), ['DELIVERED'], 'a payment without a kept answer (retention 0) gets its row')
    })

    t.test('a claim under a payment-identifier that names another payment takes nothing and names it, in the same operation', async t => {
      const id = 'pay_folded_into_the_claim'
      const first = request('pid-1', { paymentId: id, payer: 'buyer-3' })
      t.same(await a.claims.claim(first), { claimed: true, sent: false })
      t.same(await b.claims.claim(request('pid-2', { paymentId: id, payer: 'buyer-3' })), { claimed: false, paymentIdHolder: { signature: 'pid-1', status: 'pending' } },
        'another payment under the id: told which, in progress')
      t.equal(await c.claims.status('pid-2'), undefined, 'and nothing claimed')
      const heir = request('pid-1', { paymentId: id, payer: 'buyer-3', now: T0 + LEASE_MS })
      t.same(await c.claims.claim(heir), { claimed: true, sent: false }, 'the same payment under its own id is no other payment: taken over once the lease ran out')
      t.equal(await c.claims.redeem({ signature: 'pid-1', claimId: heir.claimId, now: T0 + LEASE_MS, answer: answer('{}') }), true)
      t.same(await a.claims.claim(request('pid-3', { paymentId: id, payer: 'buyer-3' })), { claimed: false, paymentIdHolder: { signature: 'pid-1', status: 'redeemed' } },
        'once delivered: named as redeemed (its kept answer decides what the buyer gets)')
      t.same(await a.claims.claim(request('pid-4', { paymentId: id, payer: 'buyer-4' })), { claimed: true, sent: false }, 'ids are per payer')
      t.same(await a.claims.claim(request('pid-5', { payer: 'buyer-3' })), { claimed: true, sent: false }, 'no id: no look-up')
    })

    t.test('one claim per payer and payment-identifier, across instances; the id is freed when its answer is pruned', async t => {
      const attempts = Array.from({ length: 30 }, (_, i) => request(`id-${i}`, { paymentId: 'pay_0123456789abcdef', payer: 'buyer-1' }))
      const results = await Promise.all(attempts.map(async (claim, i) => await instances[i % 3].claims.claim(claim)))
      const winners = attempts.filter((_, i) => results[i].claimed)
      t.equal(winners.length, 1, 'exactly one payment holds the id')
      t.ok(results.every(result => result.claimed || ('paymentIdHolder' in result ? result.paymentIdHolder.signature === winners[0].signature : result.status === 'pending')),
        'the others name the winner, or lost to it like a race (in progress)')
      t.same(await a.claims.claim(request('id-late', { paymentId: 'pay_0123456789abcdef', payer: 'buyer-1' })), { claimed: false, paymentIdHolder: { signature: winners[0].signature, status: 'pending' } })
      t.same(await b.claims.claimOfPaymentId('buyer-1', 'pay_0123456789abcdef'), { signature: winners[0].signature, status: 'pending' })
      t.equal((await a.claims.claim(request('id-other-payer', { paymentId: 'pay_0123456789abcdef', payer: 'buyer-2' }))).claimed, true, 'ids are per payer')
      t.equal(await c.claims.redeem({ signature: winners[0].signature, claimId: winners[0].claimId, now: T0, answer: answer('{}', { retentionMs: 1000 }) }), true)
      t.equal(await a.claims.pruneAnswers(T0 + 999), 0, 'kept within its retention')
      t.ok(await a.claims.pruneAnswers(T0 + 1000) >= 1, 'pruned after it')
      t.equal(await b.claims.claimOfPaymentId('buyer-1', 'pay_0123456789abcdef'), undefined, 'the id is free again')
      t.same(await c.claims.claim(request('id-after', { paymentId: 'pay_0123456789abcdef', payer: 'buyer-1' })), { claimed: true, sent: false }, 'and buys a new payment')
      t.equal((await b.claims.status(winners[0].signature))?.status, 'redeemed', 'the payment stays spent')
    })
  })
}

t.test('storage: 10,000 kept answers of an analysis-sized body stay under 64 MB of SQLite file', async t => {
  const path = join(testFolder(t), 'size.db')
  const store = createSqliteStore(path)
  t.teardown(() => store.close())
  const before = statSync(path).size
  // An analysis answer is about 3 KB of JSON; 4 KB here, with a receipt, as kept.
  const body = JSON.stringify({ document: 'x'.repeat(4000) })
  for (let i = 0; i < 10_000; i++) {
    const claim = request(`size-${String(i).padStart(83, '0')}`, { payer: 'AQgoaJYHFoSj67ZbGUEYi8bwtnYLRLFpCd9FrZP13Btd', paymentId: `pay_${String(i).padStart(32, '0')}` })
    await store.claims.claim(claim)
    await store.claims.redeem({ signature: claim.signature, claimId: claim.claimId, now: T0, answer: answer(body, { requestKey: 'EUdLyQSVj3wg_g3UITtShNdvD9CFzsqGHj3lcG5-8PM', receipt: { success: true, transaction: claim.signature, network: 'solana', payer: claim.payer } }) })
  }
  store.db.pragma('wal_checkpoint(TRUNCATE)')
  const grown = statSync(path).size - before
  t.comment(`10,000 kept answers of ${body.length} bytes: ${(grown / 1024 / 1024).toFixed(1)} MB of database file`)
  t.ok(grown < 64 * 1024 * 1024, `under the stated budget (${grown} bytes)`)
  t.equal(await store.claims.pruneAnswers(T0 + RETENTION_MS), 10_000, 'all go once their retention ends')
})
