import t from 'tap'
import type { ClaimRequest } from '../../db/contracts/payment-claims.js'
import { createRedelivery } from '../../lib/contract/redelivery.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, sentMark, storeTarget } from '../fixtures/stores.js'

// A claim left sent (a pending answer, a crash) whose payload is public once it lands: only the
// buyer's own retry, carrying its payment-identifier, may take it over; nobody overwrites the id.
const postgres = lazyPostgres(t, startTestPostgres)
const LEASE_MS = 5000
const T0 = Date.UTC(2026, 11, 2, 8, 0, 0)

let count = 0
function request (signature: string, now: number, extra: Partial<ClaimRequest> = {}): ClaimRequest {
  return { signature, claimId: `claim-${count++}`, flow: 'x402', service: 'fetch-price', payer: 'payer', amount: 50_000n, resource: '/api/fetch-price/SOL', leaseMs: LEASE_MS, now, ...extra }
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const store = await target.open()

    const buyer = request('landed', T0, { paymentId: 'pay_buyer_0123456789' })
    t.same(await store.claims.claim(buyer), { claimed: true, sent: false })
    t.equal(await store.claims.markSent(sentMark('landed', buyer.claimId, LEASE_MS, T0)), 'sent')
    t.equal(await store.claims.release('landed', buyer.claimId, T0 + 1), true, 'the pending answer ends the lease')

    const later = T0 + 10
    t.match(await store.claims.claim(request('landed', later)), { claimed: false, status: 'sent' }, 'a rebuilt payload without the id takes nothing')
    t.match(await store.claims.claim(request('landed', later, { paymentId: 'pay_watcher_0123456789' })), { claimed: false, status: 'sent' }, 'nor with another id')
    t.same(await store.claims.claimOfPaymentId('payer', 'pay_buyer_0123456789'), { signature: 'landed', status: 'sent' }, 'the buyer\'s id still names it')
    t.equal(await store.claims.claimOfPaymentId('payer', 'pay_watcher_0123456789'), undefined, 'the other id was not written')

    const retry = request('landed', later, { paymentId: 'pay_buyer_0123456789' })
    t.same(await store.claims.claim(retry), { claimed: true, sent: true }, 'the buyer\'s retry takes it over, knowing it was sent')
    t.equal(await store.claims.redeem({ signature: 'landed', claimId: retry.claimId, now: later + 1 }), true)

    // Without an id the rule stays as it was: any holder of the payload may take over a lapsed claim.
    const plain = request('plain', T0)
    t.same(await store.claims.claim(plain), { claimed: true, sent: false })
    t.equal(await store.claims.markSent(sentMark('plain', plain.claimId, LEASE_MS, T0)), 'sent')
    t.equal(await store.claims.release('plain', plain.claimId, T0 + 1), true)
    t.same(await store.claims.claim(request('plain', later)), { claimed: true, sent: true }, 'a payment without id: whoever rebuilds it')

    // A kept answer that did not reach its buyer, bought under an id: re-delivered only with that id, even with REDELIVERY=payment.
    const keptAt = Date.now() - 1000
    const bought = request('kept', keptAt, { paymentId: 'pay_kept_0123456789' })
    t.same(await store.claims.claim(bought), { claimed: true, sent: false })
    const answer = { requestKey: 'GET /api/fetch-price/SOL', status: 200, contentType: 'application/json', body: '{}', receipt: {}, retentionMs: 60_000 }
    t.equal(await store.claims.redeem({ signature: 'kept', claimId: bought.claimId, now: keptAt, answer }), true)
    const redeliveryOf = createRedelivery({ claims: store.claims, mode: 'payment', unknownForMs: 0 })
    t.equal(await redeliveryOf({ signature: 'kept', requestKey: answer.requestKey }), undefined, 'a rebuilt payload without the id: nothing (402 PAYMENT_ALREADY_USED)')
    t.equal(await redeliveryOf({ signature: 'kept', requestKey: answer.requestKey, paymentId: 'pay_other_0123456789' }), undefined, 'nor with another id')
    t.match(await redeliveryOf({ signature: 'kept', requestKey: answer.requestKey, paymentId: 'pay_kept_0123456789' }), { kind: 'redelivered' }, 'the buyer\'s id: the kept answer')
  })
}
