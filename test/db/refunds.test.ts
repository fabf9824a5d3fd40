import t from 'tap'
import type { ClaimRequest } from '../../db/contracts/payment-claims.js'
import type { RefundBegin } from '../../db/contracts/refunds.js'
import type { Store } from '../../db/store.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, sentMark, storeTarget } from '../fixtures/stores.js'

// Refund and redemption exclude each other in one store operation, on both engines, with several
// instances (own connections or pools) on one shared database.
const postgres = lazyPostgres(t, startTestPostgres)
const LEASE_MS = 5000
const WINDOW_MS = 3_600_000
const T0 = Date.UTC(2026, 9, 20, 10, 0, 0)

let count = 0
function claimOf (signature: string, extra: Partial<ClaimRequest> = {}): ClaimRequest {
  return { signature, claimId: `claim-${count++}`, flow: 'proof', service: 'fetch-price', payer: 'payer', amount: 50_000n, resource: '/api/fetch-price/SOL', leaseMs: LEASE_MS, now: T0, ...extra }
}
function refundOf (payment: string, extra: Partial<RefundBegin> = {}): RefundBegin {
  return { payment, idempotencyKey: `key-${count++}`, payer: 'payer', destination: 'payer-ata', amount: 50_000n, reason: 'not delivered', flow: 'proof', holder: `holder-${count++}`, leaseMs: LEASE_MS, paidAt: T0, windowMs: WINDOW_MS, now: T0 + 1000, ...extra }
}
const sent = (signature: string) => ({ signature, wire: `wire-of-${signature}`, lastValidBlockHeight: 2n ** 40n })

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const [a, b, c] = [await target.open(), await target.open(), await target.open()]
    const instances: Store[] = [a, b, c]

    t.test('a refund turns a claim in progress: its holder can no longer redeem, and the payment never buys again', async t => {
      const held = claimOf('in-progress')
      t.same(await a.claims.claim(held), { claimed: true, sent: false })
      const begun = await b.refunds.begin(refundOf('in-progress'))
      t.ok(begun.begun, 'begun')
      t.equal(await a.claims.redeem({ signature: 'in-progress', claimId: held.claimId }), false, 'the holder delivers nothing')
      t.equal(await a.claims.release('in-progress', held.claimId), false, 'nor gives it back')
      t.equal(await a.claims.markSent(sentMark('in-progress', held.claimId, LEASE_MS)), 'not-held', 'nor sends')
      t.same(await c.claims.status('in-progress'), { status: 'refunded', flow: 'proof' })
      t.same(await c.claims.claim(claimOf('in-progress', { now: T0 + 10 * LEASE_MS })), { claimed: false, status: 'refunded', flow: 'proof' }, 'never taken over')
    })

    t.test('a payment never claimed (or given back) gets a tombstone claim: it never buys after', async t => {
      const begun = await a.refunds.begin(refundOf('never-claimed', { flow: 'x402' }))
      t.ok(begun.begun)
      t.same(await b.claims.claim(claimOf('never-claimed', { flow: 'x402' })), { claimed: false, status: 'refunded', flow: 'x402' })
      t.same(await c.claims.claim(claimOf('never-claimed', { flow: 'proof' })), { claimed: false, status: 'refunded', flow: 'x402' })
    })

    t.test('a redeemed payment is never refunded', async t => {
      const held = claimOf('delivered')
      await a.claims.claim(held)
      t.equal(await a.claims.redeem({ signature: 'delivered', claimId: held.claimId }), true)
      t.same(await b.refunds.begin(refundOf('delivered')), { begun: false, denied: 'delivered' })
      t.equal(await c.refunds.get('delivered'), undefined, 'no refund row')
      t.same(await c.claims.status('delivered'), { status: 'redeemed', flow: 'proof' })
    })

    t.test('a refund racing a redemption over instances: exactly one wins, every time', async t => {
      for (let i = 0; i < 15; i++) {
        const signature = `race-${i}`
        const held = claimOf(signature)
        await a.claims.claim(held)
        const [redeemed, refund] = await Promise.all([
          instances[i % 3].claims.redeem({ signature, claimId: held.claimId }),
          instances[(i + 1) % 3].refunds.begin(refundOf(signature))
        ])
        t.equal(Number(redeemed) + Number(refund.begun), 1, `${signature}: one of them`)
        const status = (await c.claims.status(signature))?.status
        t.equal(status, redeemed ? 'redeemed' : 'refunded')
        if (redeemed) t.same(refund, { begun: false, denied: 'delivered' })
        t.equal((await c.refunds.get(signature)) === undefined, redeemed, 'a refund row only when the refund won')
      }
    })

    t.test('30 refund requests at once over three instances, same and different idempotency keys: one refund', async t => {
      const requests = Array.from({ length: 30 }, (_, i) => refundOf('many', { idempotencyKey: i % 2 === 0 ? 'same-key' : `key-${i}` }))
      const results = await Promise.all(requests.map(async (request, i) => await instances[i % 3].refunds.begin(request)))
      const begun = results.filter(result => result.begun)
      t.equal(begun.length, 1, 'one begins')
      const winner = begun[0].begun ? begun[0].refund : undefined
      t.ok(results.every(result => result.begun || ('existing' in result && result.existing.payment === 'many' && result.existing.holder === winner?.holder)), 'the others find it')
      t.equal(winner?.status, 'reserved')
      t.equal(winner?.amount, 50_000n)
    })

    t.test('the window is read on the store clock; a refund that exists is found after it', async t => {
      t.same(await a.refunds.begin(refundOf('late', { now: T0 + WINDOW_MS + 1 })), { begun: false, denied: 'outside_window' })
      t.same(await b.claims.status('late'), undefined, 'nothing written')
      const begun = await a.refunds.begin(refundOf('in-time', { now: T0 + WINDOW_MS }))
      t.ok(begun.begun, 'the window\'s last millisecond')
      const again = await b.refunds.begin(refundOf('in-time', { now: T0 + 2 * WINDOW_MS }))
      t.ok(!again.begun && 'existing' in again, 'the same refund, whenever asked')
    })

    t.test('lifecycle: sent recorded by the holder before sending, decided only for that transaction, taken over once its lease ran out', async t => {
      const begun = await a.refunds.begin(refundOf('life', { holder: 'first', now: T0 }))
      t.ok(begun.begun)
      t.equal(await b.refunds.markSent('life', 'someone-else', sent('tx-1')), false, 'only the holder marks it')
      t.equal(await b.refunds.takeOver('life', 'second', LEASE_MS, T0 + LEASE_MS - 1), undefined, 'leased: not taken')
      t.equal(await a.refunds.markSent('life', 'first', sent('tx-1')), true)
      t.equal(await a.refunds.markSent('life', 'first', sent('tx-2')), false, 'once: a sent refund keeps its transaction')
      t.match(await c.refunds.get('life'), { status: 'sent', refundSignature: 'tx-1', wire: 'wire-of-tx-1', lastValidBlockHeight: 2n ** 40n })
      t.same(await c.refunds.unsettled(10, T0 + LEASE_MS - 1), [], 'held: not the reconciler\'s yet')
      t.same((await c.refunds.unsettled(10, T0 + LEASE_MS)).map(refund => refund.payment), ['life'], 'the holder died: the reconciler\'s')
      const heir = await b.refunds.takeOver('life', 'second', LEASE_MS, T0 + LEASE_MS)
      t.match(heir, { status: 'sent', holder: 'second', refundSignature: 'tx-1', wire: 'wire-of-tx-1' }, 'taken over with its transaction, to ask the chain about')
      t.equal(await c.refunds.takeOver('life', 'third', LEASE_MS, T0 + LEASE_MS), undefined, 'once')
      t.equal(await c.refunds.decide('life', 'tx-other', 'executed'), false, 'only the recorded transaction decides')
      t.equal(await c.refunds.decide('life', 'tx-1', 'failed', T0 + LEASE_MS + 1), true, 'the chain: it failed')
      const retry = await a.refunds.takeOver('life', 'fourth', LEASE_MS, T0 + LEASE_MS + 2)
      t.match(retry, { status: 'reserved', holder: 'fourth' }, 'a failed refund is reserved again at once')
      t.equal(retry?.refundSignature, undefined, 'its dead transaction forgotten')
      t.equal(await a.refunds.markSent('life', 'fourth', sent('tx-3')), true)
      t.equal(await b.refunds.decide('life', 'tx-3', 'executed', T0 + LEASE_MS + 3), true)
      t.equal(await b.refunds.decide('life', 'tx-3', 'failed'), false, 'decided for good')
      t.match(await c.refunds.get('life'), { status: 'executed', refundSignature: 'tx-3', decidedAt: T0 + LEASE_MS + 3 })
      t.equal(await c.refunds.takeOver('life', 'fifth', LEASE_MS, T0 + 100 * LEASE_MS), undefined, 'an executed refund is never taken')
      t.notOk((await c.refunds.unsettled(100, T0 + 100 * LEASE_MS)).some(refund => refund.payment === 'life'))
    })
  })
}
