import { randomUUID } from 'node:crypto'
import t from 'tap'
import { paymentInProgress } from '../../../lib/contract/refusal.js'
import { NOT_REACHED, type PaidDelivery } from '../../../lib/delivery/paid-delivery.js'
import { ANSWER, coreUnderTest, entry, LEASE_MS, PRODUCT } from '../../fixtures/delivery-core.js'

// The delivery core on its own: the real SQLite store, the proof method's own settle (a redeem in
// the store), and a clock the test turns by hand for the lease renewal (test/fixtures/delivery-core.ts).

t.test('held → settling → done: the handler\'s answer is redeemed and kept, one row, one attempt', async (t) => {
  const c = coreUnderTest(t)
  const payment = await c.hold()
  let stateWhileSettling: string | undefined
  const delivery: PaidDelivery = c.core.begin(payment, async (answer) => {
    stateWhileSettling = delivery.state
    return await c.settleOf(payment)(answer)
  }, 'client-1')
  t.equal(delivery.state, 'held')
  t.equal(delivery.outcome, 'PENDING')
  t.equal(c.clock.tasks.size, 1, 'the lease is renewed while the handler runs')
  t.equal([...c.clock.tasks][0].ms, LEASE_MS / 3, 'every third of the lease')

  const result = await delivery.complete(ANSWER)
  t.equal(stateWhileSettling, 'settling', 'settlement runs in the settling state')
  t.match(result, { kind: 'settled', receipt: { success: true, transaction: payment.signature, payer: payment.payer } })
  t.equal(delivery.state, 'done')
  t.equal(delivery.outcome, 'DELIVERED')
  t.equal(c.clock.tasks.size, 0, 'the renewal stops once done')
  t.match(await c.store.claims.status(payment.signature), { status: 'redeemed', flow: 'proof' })
  const kept = await c.store.claims.keptAnswer(payment.signature)
  t.match(kept, { body: ANSWER.body, status: 200, requestKey: payment.requestKey, reached: null })
  t.same(c.settlements.map(s => s.outcome), ['settled'])

  await delivery.record(entry(true, 200))
  await delivery.record(entry(false, 500))
  t.same(c.auditRows(payment.signature), [{ outcome: 'DELIVERED', status: 200, flow: 'proof' }], 'the row is written once, by the first record')
  t.equal((await c.store.claims.keptAnswer(payment.signature))?.reached, true, 'the answer is marked reached with the row')
  t.same(c.attempts, [{ service: payment.service, flow: 'proof', outcome: 'DELIVERED' }], 'one attempt published')

  t.match(await delivery.complete(ANSWER), paymentInProgress('no-longer-held'), 'a second complete settles nothing')
  t.same(c.settlements.length, 1)
})

t.test('no retention: the payment is redeemed and no answer is kept', async (t) => {
  const c = coreUnderTest(t, { retentionMs: 0 })
  const payment = await c.hold()
  const delivery = c.core.begin(payment, c.settleOf(payment), 'client-1')
  t.equal((await delivery.complete(ANSWER)).kind, 'settled')
  t.match(await c.store.claims.status(payment.signature), { status: 'redeemed' })
  t.equal(await c.store.claims.keptAnswer(payment.signature), undefined)
})

t.test('abort while settling is ignored: the settlement decides, and the row says the answer did not reach the buyer', async (t) => {
  const c = coreUnderTest(t)
  const payment = await c.hold()
  let open!: () => void
  const gate = new Promise<void>(resolve => { open = resolve })
  const delivery = c.core.begin(payment, async (answer) => {
    await gate
    return await c.settleOf(payment)(answer)
  }, 'client-1')
  const completing = delivery.complete(ANSWER)
  t.equal(delivery.state, 'settling')

  await delivery.abort()
  t.equal(delivery.state, 'settling', 'the abort changes nothing once settlement started')
  t.match(await c.store.claims.status(payment.signature), { status: 'pending' }, 'the claim is not given back')
  const recording = delivery.record(entry(false))
  open()
  t.equal((await completing).kind, 'settled')
  await recording
  t.same(c.auditRows(payment.signature), [{ outcome: NOT_REACHED, status: 200, flow: 'proof' }], 'recorded after the settlement ended: paid, not reached')
  t.match(await c.store.claims.keptAnswer(payment.signature), { reached: false }, 'kept for re-delivery')
  t.match(await c.store.claims.status(payment.signature), { status: 'redeemed' })
})

t.test('abort while held gives the claim back; nothing settles afterwards', async (t) => {
  const c = coreUnderTest(t)
  const payment = await c.hold()
  let settled = 0
  const delivery = c.core.begin(payment, async (answer) => { settled++; return await c.settleOf(payment)(answer) }, 'client-1')
  await delivery.abort()
  t.equal(delivery.state, 'done')
  t.equal(delivery.outcome, 'CLIENT_ABORTED')
  t.equal(await c.store.claims.status(payment.signature), undefined, 'the payment is usable again')
  t.equal(c.clock.tasks.size, 0, 'no renewal left running')
  t.match(await delivery.complete(ANSWER), { kind: 'refused', code: 'PAYMENT_IN_PROGRESS' })
  t.equal(settled, 0, 'settle never ran')
  t.same(c.handlerFailures, ['client-1'], 'a hang-up after the claim counts against the client, as a handler failure does (issue #55 item 5: it ran the product for free)')
  t.same(c.attempts, [{ service: payment.service, flow: 'proof', outcome: 'CLIENT_ABORTED' }])
})

t.test('a handler failure gives the claim back, counts against the client, and the same payment works again', async (t) => {
  const c = coreUnderTest(t)
  const payment = await c.hold()
  const delivery = c.core.begin(payment, c.settleOf(payment), 'client-1')
  await delivery.fail('UPSTREAM_UNAVAILABLE')
  await delivery.fail('UPSTREAM_UNAVAILABLE')
  t.equal(delivery.outcome, 'UPSTREAM_UNAVAILABLE')
  t.same(c.handlerFailures, ['client-1'], 'counted once')
  t.equal(await c.store.claims.status(payment.signature), undefined)
  await delivery.record(entry(true, 503))
  t.same(c.auditRows(payment.signature), [{ outcome: 'UPSTREAM_UNAVAILABLE', status: 503, flow: 'proof' }])

  const again = await c.store.claims.claim({ ...payment, claimId: randomUUID(), flow: 'proof', leaseMs: LEASE_MS })
  t.match(again, { claimed: true }, 'the payment can be claimed again')
})

t.test('a settlement that throws: nothing delivered, the claim given back, an internal error logged', async (t) => {
  const c = coreUnderTest(t)
  const payment = await c.hold()
  const delivery = c.core.begin(payment, async () => { throw new Error('the store went away') }, 'client-1')
  t.match(await delivery.complete(ANSWER), { kind: 'refused', code: 'INTERNAL_ERROR' })
  t.equal(delivery.outcome, 'INTERNAL_ERROR')
  t.equal(await c.store.claims.status(payment.signature), undefined, 'given back')
  t.same(c.errors, ['settlement failed'])
})

t.test('the lease is renewed while the handler runs: a competitor after the first lease finds it held', async (t) => {
  const c = coreUnderTest(t)
  // Claimed almost a lease ago: without renewal it ends in a second.
  const payment = await c.hold(LEASE_MS - 1000)
  const delivery = c.core.begin(payment, c.settleOf(payment), 'client-1')
  await c.clock.tick()
  t.same(c.warnings, [], 'renewed')
  const competitor = await c.store.claims.claim({ ...payment, claimId: randomUUID(), flow: 'proof', leaseMs: LEASE_MS, now: Date.now() + 5000 })
  t.match(competitor, { claimed: false, status: 'pending' }, 'still held after the first lease would have ended')
  t.equal((await delivery.complete(ANSWER)).kind, 'settled', 'and it delivers')
})

t.test('a lost claim never delivers: taken over while the handler ran, the holder\'s settle is refused', async (t) => {
  const c = coreUnderTest(t)
  const payment = await c.hold(LEASE_MS + 1000)
  const delivery = c.core.begin(payment, c.settleOf(payment), 'client-1')
  // Its lease ended before the renewal came: another request takes the payment over.
  const takeover = { ...payment, claimId: randomUUID() }
  t.match(await c.store.claims.claim({ ...takeover, flow: 'proof', leaseMs: LEASE_MS }), { claimed: true })
  await c.clock.tick()
  t.same(c.warnings, ['the claim was taken over while this request worked; it will not deliver'])

  const result = await delivery.complete(ANSWER)
  t.match(result, { kind: 'refused', code: 'PAYMENT_IN_PROGRESS' })
  t.equal(delivery.outcome, 'PAYMENT_IN_PROGRESS')
  t.equal(await c.store.claims.keptAnswer(payment.signature), undefined, 'no answer kept for the loser')
  t.match(await c.store.claims.status(payment.signature), { status: 'pending' }, 'the new holder keeps it')
  t.same(c.clientFailures, [{ client: 'client-1', code: 'PAYMENT_IN_PROGRESS' }], 'a refused settlement counts like a refusal')
  t.same(c.settlements.map(s => s.outcome), ['failed'])

  const winner = c.core.begin(takeover, c.settleOf(takeover), 'client-2')
  t.equal((await winner.complete(ANSWER)).kind, 'settled', 'the holder that took over delivers, once')
  t.match(await c.store.claims.status(payment.signature), { status: 'redeemed' })
})

t.test('refused before a claim: counted as unpaid and against the client, nothing stored', async (t) => {
  const c = coreUnderTest(t)
  const refusal = paymentInProgress('x402-held')
  t.equal(c.core.refused(PRODUCT.name, 'x402-v2', 'client-9', refusal), refusal, 'the refusal is handed back as it was')
  t.same(c.clientFailures, [{ client: 'client-9', code: 'PAYMENT_IN_PROGRESS' }])
  t.same(c.attempts, [{ service: PRODUCT.name, flow: 'x402-v2', outcome: 'PAYMENT_IN_PROGRESS' }])
  t.equal(c.store.db.prepare('SELECT count(*) FROM audit_log').pluck().get(), 0, 'no audit row')
  await c.store.audit.flushUnpaid()
  t.same(c.store.db.prepare('SELECT service, outcome, count FROM unpaid_counts').all(), [{ service: PRODUCT.name, outcome: 'PAYMENT_IN_PROGRESS', count: 1 }])
})

t.test('re-delivered: a kept answer that did not reach its buyer is served again and recorded once it reaches', async (t) => {
  const c = coreUnderTest(t)
  const payment = await c.hold()
  const delivery = c.core.begin(payment, c.settleOf(payment), 'client-1')
  await delivery.complete(ANSWER)
  await delivery.record(entry(false))
  t.same(c.auditRows(payment.signature).map(r => r.outcome), [NOT_REACHED])
  const kept = await c.store.claims.keptAnswer(payment.signature)
  if (kept === undefined) throw new Error('no kept answer')

  const lostAgain = c.core.redelivered(kept, 'x402-v2')
  t.equal(lostAgain.answer.body, ANSWER.body)
  await lostAgain.record(entry(false))
  t.same(c.auditRows(payment.signature).map(r => r.outcome), [NOT_REACHED], 'lost again: the row stays')

  const again = c.core.redelivered(kept, 'x402-v2')
  await again.record(entry(true))
  await again.record(entry(true, 500))
  t.same(c.auditRows(payment.signature), [{ outcome: 'DELIVERED', status: 200, flow: 'x402-v2' }], 'one row per payment, replaced once')
  t.equal((await c.store.claims.keptAnswer(payment.signature))?.reached, true)
  t.same(c.attempts.filter(a => a.flow === 'x402-v2').map(a => a.outcome), ['DELIVERED', 'DELIVERED'], 'each re-delivery is an attempt')
})
