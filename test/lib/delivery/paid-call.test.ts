import { randomBytes, randomUUID } from 'node:crypto'
import bs58 from 'bs58'
import t, { type Test } from 'tap'
import type { AuditFlow } from '../../../db/contracts/audit-log.js'
import type { HeldPayment } from '../../../lib/contract/held-payment.js'
import { createRedelivery } from '../../../lib/contract/redelivery.js'
import { paymentAlreadyUsed, paymentInProgress, refusal } from '../../../lib/contract/refusal.js'
import { AppError } from '../../../lib/errors/app-error.js'
import { deliverPaidCall, type PaidCall } from '../../../lib/delivery/paid-call.js'
import { NOT_REACHED } from '../../../lib/delivery/paid-delivery.js'
import { createProofFailureLimit } from '../../../lib/payment/proof-failure-limit.js'
import { toolErrorBodies } from '../../../lib/tools/tool-errors.js'
import { coreUnderTest, LEASE_MS, PRODUCT, type CoreUnderTest } from '../../fixtures/delivery-core.js'

// The steps of a paid call (lib/delivery/paid-call.ts) on the real SQLite store, as the MCP and A2A
// doors drive them: the payment method claims in the store as the proof method does once the
// chain said yes, and settles with the proof method's own redeem (test/fixtures/delivery-core.ts).

type Context = { flow: AuditFlow, resource: string, requestKey: string }
const CONTEXT: Context = { flow: 'mcp', resource: 'mcp://tool/test', requestKey: 'tools/call test' }
const DOCUMENT = { price: 1 }

/** A buyer's payment: the signature its payload names, and who paid. */
const newPayment = () => ({ signature: bs58.encode(randomBytes(64)), payer: bs58.encode(randomBytes(32)) })
type Payload = ReturnType<typeof newPayment>

/** A payment method over the store: a payload is claimed, or its kept answer re-delivered, or refused, in one store operation each. */
function storeMethod (c: CoreUnderTest) {
  const redeliveryOf = createRedelivery({ claims: c.store.claims, mode: 'payment', unknownForMs: LEASE_MS })
  const claimed: string[] = []
  return {
    claimed,
    async verifyAndClaim (payload: unknown, service: string, context: Context) {
      const paid = payload as Payload | undefined
      if (typeof paid?.signature !== 'string') return refusal('X402_INVALID_PAYLOAD', 'no payment in the payload')
      const payment: HeldPayment = { ...paid, claimId: randomUUID(), amount: PRODUCT.price, service, ...context }
      const claim = await c.store.claims.claim({ ...payment, flow: 'proof', leaseMs: LEASE_MS })
      if (!claim.claimed) {
        if ('status' in claim && claim.status === 'redeemed') return await redeliveryOf({ signature: paid.signature, requestKey: context.requestKey }) ?? paymentAlreadyUsed('x402')
        return paymentInProgress('x402-held')
      }
      claimed.push(payment.signature)
      return { kind: 'held' as const, payment }
    },
    settle: async (payment: HeldPayment, answer?: Parameters<ReturnType<CoreUnderTest['settleOf']>>[0]) => await c.settleOf(payment)(answer)
  }
}

/** A deferred "reached": the door says when the answer went out. */
function answerGoesOut () {
  let say!: (reached: boolean) => void
  const reached = new Promise<boolean>(resolve => { say = resolve })
  return { reached: async () => await reached, say }
}

interface Scene {
  c: CoreUnderTest
  method: ReturnType<typeof storeMethod>
  limit: ReturnType<typeof createProofFailureLimit>
  runs: number
  held: HeldPayment[]
  logged: string[]
  call: (payload: unknown, overrides?: Partial<PaidCall<string, Context, HeldPayment>>) => PaidCall<string, Context, HeldPayment>
}

function scene (t: Test): Scene {
  const c = coreUnderTest(t)
  const logged: string[] = []
  const log = { warn: (_details: object, message: string) => logged.push(message), error: (_details: object, message: string) => logged.push(message) }
  const s: Scene = {
    c,
    method: storeMethod(c),
    limit: createProofFailureLimit({ limit: 2, windowMs: 60_000 }),
    runs: 0,
    held: [],
    logged,
    call: (payload, overrides = {}) => ({
      method: s.method,
      payload,
      service: PRODUCT.name,
      context: CONTEXT,
      client: 'client-1',
      requestId: randomUUID(),
      checkFailureLimit: client => s.limit.check(client),
      run: async () => { s.runs++; return DOCUMENT },
      errorBodyOf: toolErrorBodies({ id: 'req-1' }, log),
      cancelled: () => false,
      reached: async () => true,
      onHeld: payment => s.held.push(payment),
      ...overrides
    })
  }
  return s
}

const auditCount = (c: CoreUnderTest) => c.store.db.prepare('SELECT count(*) FROM audit_log').pluck().get()

t.test('refused before a claim: nothing stored, nothing run, the refusal as the method gave it', async (t) => {
  const s = scene(t)
  const outcome = await deliverPaidCall(s.c.core, s.call({ not: 'a payment' }))
  t.match(outcome, { kind: 'refused', refusal: { code: 'X402_INVALID_PAYLOAD', statusCode: 402 } })
  t.equal(s.runs, 0, 'the product did not run')
  t.same(s.held, [], 'onHeld was not called')
  t.equal(auditCount(s.c), 0, 'no audit row')
  t.equal(s.c.store.db.prepare('SELECT count(*) FROM payment_claims').pluck().get(), 0, 'no claim')
  await s.c.store.audit.flushUnpaid()
  t.same(s.c.store.db.prepare('SELECT service, outcome, count FROM unpaid_counts').all(), [{ service: PRODUCT.name, outcome: 'X402_INVALID_PAYLOAD', count: 1 }], 'only counted')
  t.same(s.c.clientFailures, [{ client: 'client-1', code: 'X402_INVALID_PAYLOAD' }], 'counted against the client')
  t.same(s.c.attempts, [{ service: PRODUCT.name, flow: 'mcp', outcome: 'X402_INVALID_PAYLOAD' }])
})

t.test('at the failure limit: RATE_LIMITED before the method is asked, nothing stored', async (t) => {
  const s = scene(t)
  s.limit.count('client-1')
  s.limit.count('client-1')
  const payment = newPayment()
  const outcome = await deliverPaidCall(s.c.core, s.call(payment))
  t.match(outcome, { kind: 'refused', refusal: { code: 'RATE_LIMITED', statusCode: 429 } })
  t.ok(outcome.kind === 'refused' && outcome.refusal.retryAfterSeconds !== undefined, 'with its Retry-After')
  t.same(s.method.claimed, [], 'the method never claimed')
  t.equal(await s.c.store.claims.status(payment.signature), undefined, 'nothing stored')
})

t.test('the call under way is counted off once answered: only failures fill the limit', async (t) => {
  const s = scene(t)
  s.limit.count('client-1')
  t.match(await deliverPaidCall(s.c.core, s.call({ no: 'payment' })), { kind: 'refused' })
  t.match(await deliverPaidCall(s.c.core, s.call(newPayment())), { kind: 'delivered' })
  t.doesNotThrow(() => s.limit.check('client-1'), 'one failure and nothing left under way: below the limit of 2')
})

t.test('the product fails: the claim is given back with its code, the row written before the answer, the same payment buys the next call', async (t) => {
  const s = scene(t)
  const payment = newPayment()
  const failing = s.call(payment, { run: async () => { throw new AppError('UPSTREAM_UNAVAILABLE', 'the price API is down') } })
  const outcome = await deliverPaidCall(s.c.core, failing)
  t.match(outcome, { kind: 'failed', payment: { signature: payment.signature }, body: { code: 'UPSTREAM_UNAVAILABLE', statusCode: 503, requestId: 'req-1' } })
  t.equal(await s.c.store.claims.status(payment.signature), undefined, 'the claim was given back')
  t.same(s.c.auditRows(payment.signature), [{ outcome: 'UPSTREAM_UNAVAILABLE', status: 503, flow: 'mcp' }])
  t.same(s.c.handlerFailures, ['client-1'], 'a handler failure counts against the client')

  const again = await deliverPaidCall(s.c.core, s.call(payment))
  t.match(again, { kind: 'delivered', document: DOCUMENT, receipt: { success: true, transaction: payment.signature } }, 'the same payment buys the next call')
})

t.test('a bug in the product is INTERNAL_ERROR without its text, logged', async (t) => {
  const s = scene(t)
  const outcome = await deliverPaidCall(s.c.core, s.call(newPayment(), { run: async () => { throw new Error('secret detail') } }))
  t.match(outcome, { kind: 'failed', body: { code: 'INTERNAL_ERROR', statusCode: 500 } })
  t.notMatch(JSON.stringify(outcome.kind === 'failed' ? outcome.body : {}), /secret detail/, 'the body names no internal text')
  t.same(s.logged, ['unhandled error in an MCP tool'])
})

t.test('cancelled once the product ran: nothing settled, the claim given back, a 499 row', async (t) => {
  const s = scene(t)
  const payment = newPayment()
  let asked = 0
  const outcome = await deliverPaidCall(s.c.core, s.call(payment, { cancelled: () => { asked++; return s.runs > 0 } }))
  t.match(outcome, { kind: 'cancelled', payment: { signature: payment.signature } })
  t.equal(asked, 1, 'asked once, after the product ran')
  t.equal(await s.c.store.claims.status(payment.signature), undefined, 'the claim was given back')
  t.equal(await s.c.store.claims.keptAnswer(payment.signature), undefined, 'nothing settled, nothing kept')
  t.same(s.c.auditRows(payment.signature), [{ outcome: 'CLIENT_ABORTED', status: 499, flow: 'mcp' }])
  t.same(s.c.settlements, [], 'no settlement')
  t.same(s.c.handlerFailures, ['client-1'], 'the cancel counts against the client: the product ran for nothing')
})

t.test('delivered: onHeld before the product runs, settled, and recorded once, when the answer reached the buyer', async (t) => {
  const s = scene(t)
  const payment = newPayment()
  const door = answerGoesOut()
  let runsWhenHeld = -1
  const outcome = await deliverPaidCall(s.c.core, s.call(payment, { reached: door.reached, onHeld: held => { s.held.push(held); runsWhenHeld = s.runs } }))
  t.match(outcome, { kind: 'delivered', payment: { signature: payment.signature, flow: 'mcp' }, document: DOCUMENT, receipt: { success: true, transaction: payment.signature, payer: payment.payer } })
  t.equal(s.held.length, 1)
  t.equal(runsWhenHeld, 0, 'held before the product ran')
  t.match(await s.c.store.claims.status(payment.signature), { status: 'redeemed' })
  t.match(await s.c.store.claims.keptAnswer(payment.signature), { body: JSON.stringify(DOCUMENT), reached: null }, 'kept; not known yet whether it reached')
  t.same(s.c.auditRows(payment.signature), [], 'no row until the door says whether the answer went out')

  door.say(true)
  await new Promise(resolve => setImmediate(resolve))
  t.same(s.c.auditRows(payment.signature), [{ outcome: 'DELIVERED', status: 200, flow: 'mcp' }])
  t.equal((await s.c.store.claims.keptAnswer(payment.signature))?.reached, true, 'marked reached with its row')
  t.same(s.c.attempts, [{ service: PRODUCT.name, flow: 'mcp', outcome: 'DELIVERED' }])
})

t.test('re-delivered: an answer that did not reach its buyer is served again to the same payment, nothing run, nothing charged', async (t) => {
  const s = scene(t)
  const payment = newPayment()
  const lost = answerGoesOut()
  t.match(await deliverPaidCall(s.c.core, s.call(payment, { reached: lost.reached })), { kind: 'delivered' })
  lost.say(false)
  await new Promise(resolve => setImmediate(resolve))
  t.same(s.c.auditRows(payment.signature).map(row => row.outcome), [NOT_REACHED], 'paid, not reached: kept for re-delivery')

  const door = answerGoesOut()
  const again = await deliverPaidCall(s.c.core, s.call(payment, { reached: door.reached, context: { ...CONTEXT, flow: 'a2a' } }))
  t.match(again, { kind: 'redelivered', answer: { signature: payment.signature, body: JSON.stringify(DOCUMENT), receipt: { transaction: payment.signature } } })
  t.equal(s.runs, 1, 'the product ran once')
  t.equal(s.held.length, 1, 'held once')
  t.same(s.c.settlements.length, 1, 'settled once')
  door.say(true)
  await new Promise(resolve => setImmediate(resolve))
  t.same(s.c.auditRows(payment.signature), [{ outcome: 'DELIVERED', status: 200, flow: 'a2a' }], 'one row per payment, now delivered')

  t.match(await deliverPaidCall(s.c.core, s.call(payment)), { kind: 'refused', refusal: { code: 'PAYMENT_ALREADY_USED' } }, 'once it reached, the payment buys nothing more')
})

t.test('settlement refused: the document is withheld and the row says why', async (t) => {
  const s = scene(t)
  const payment = newPayment()
  // The product outlives the claim's lease: another request takes the payment over, and this
  // holder's redeem is refused.
  const takeOver = async () => {
    const held = s.held[0]
    t.match(await s.c.store.claims.claim({ ...held, claimId: randomUUID(), flow: 'proof', leaseMs: LEASE_MS, now: Date.now() + LEASE_MS + 1000 }), { claimed: true })
    return DOCUMENT
  }
  const outcome = await deliverPaidCall(s.c.core, s.call(payment, { run: takeOver }))
  t.match(outcome, { kind: 'settlement-refused', payment: { signature: payment.signature }, refusal: { code: 'PAYMENT_IN_PROGRESS' } })
  t.notOk('document' in outcome, 'no document')
  t.same(s.c.auditRows(payment.signature), [{ outcome: 'PAYMENT_IN_PROGRESS', status: 409, flow: 'mcp' }])
})

t.test('an error that is no refusal is thrown to the door, after nothing was claimed', async (t) => {
  const s = scene(t)
  const broken = { ...s.method, verifyAndClaim: async () => { throw new Error('a bug in the method') } }
  await t.rejects(deliverPaidCall(s.c.core, s.call(newPayment(), { method: broken })), /a bug in the method/)
  t.equal(auditCount(s.c), 0)
})
