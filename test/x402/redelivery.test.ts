import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { Challenge, Credential, Receipt } from 'mppx'
import type { PostgresStore } from '../../db/postgres/postgres-store.js'
import type { SqliteStore } from '../../db/sqlite/sqlite-store.js'
import { requestKey } from '../../lib/contract/request-key.js'
import { signProof } from '../../lib/payment/wallet-signature.js'
import { BUYER_TOKENS, DATA, PRICE, startMerchant, until } from '../fixtures/cluster-merchant.js'
import { assertOriginalReceipt } from '../fixtures/original-receipt.js'
import { proofHeaders, tokenBalanceOf } from '../fixtures/paid-chain.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { base64Json, paymentRequiredOf } from '../fixtures/x402-payment.js'

type Merchant = Awaited<ReturnType<typeof startMerchant>>

/** A lease of 5 s covers the handler and a 1 s settlement (config checks it). */
const merchant = async (t: Test, env: Record<string, string>) => await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '1000', ...env })

/** The outcome in a payment's audit row, read where the merchant writes it (either engine). */
async function auditOutcome (app: FastifyInstance, signature: string): Promise<string | undefined> {
  const store = app.store as SqliteStore | PostgresStore
  if (store.engine === 'sqlite') return (store.db.prepare('SELECT outcome FROM audit_log WHERE signature = ?').get(signature) as { outcome: string } | undefined)?.outcome
  return (await store.pool.query<{ outcome: string }>('SELECT outcome FROM audit_log WHERE signature = $1', [signature])).rows[0]?.outcome
}

/** A paid GET the client gives up on once the merchant has settled (the answer is held back meanwhile): the answer is lost after the money moved. */
async function getAndLeaveAfterSettlement (m: Merchant, headers: Record<string, string>, signature: string, path = '/test/paid') {
  let released = () => {}
  m.route.beforeWrite = async () => await new Promise<void>(resolve => { released = resolve })
  const leaving = new AbortController()
  const answer = fetch(`${m.url}${path}`, { headers, signal: leaving.signal }).then(() => 'answered', () => 'left')
  await until(async () => (await m.app.store.claims.status(signature))?.status === 'redeemed', 10_000)
  leaving.abort()
  t.equal(await answer, 'left')
  // The merchant saw the client leave: the payment's row says its answer did not reach the buyer.
  await until(async () => await auditOutcome(m.app, signature) === 'CLIENT_ABORTED_AFTER_PAYMENT')
  m.route.beforeWrite = undefined
  released()
}

async function getWith (m: Merchant, headers: Record<string, string>, path = '/test/paid') {
  const res = await fetch(`${m.url}${path}`, { headers })
  const receipt = res.headers.get('payment-response') ?? res.headers.get('x-payment-response')
  return {
    status: res.status,
    body: await res.json() as Record<string, unknown>,
    redelivered: res.headers.get('x-payment-redelivered'),
    receipt: receipt === null ? null : JSON.parse(Buffer.from(receipt, 'base64').toString('utf8')) as Record<string, unknown>
  }
}

/** The v2 payment header of `tx`, with a payment-identifier when given, bought for `path`. */
function v2HeaderFor (m: Merchant, tx: string, required: ReturnType<typeof paymentRequiredOf>, paymentId?: string | Record<string, unknown>) {
  const extensions = paymentId === undefined
    ? undefined
    : typeof paymentId === 'string' ? appendPaymentIdentifierToExtensions({ 'payment-identifier': { info: { required: false } } }, paymentId) : paymentId
  return base64Json({ x402Version: 2, resource: required.resource, accepted: required.accepts[0], payload: { transaction: tx }, ...(extensions === undefined ? {} : { extensions }) })
}

async function requiredFor (m: Merchant, path: string) {
  return paymentRequiredOf((await fetch(`${m.url}${path}`)).headers)
}

async function engines (t: Test): Promise<Array<[string, Record<string, string>]>> {
  return [['SQLite', {}], ['PostgreSQL', { DATABASE_URL: await (await startTestPostgres(t)).createDatabase(t) }]]
}

t.test('x402: the client leaves during a slow settlement; the same payload fetches the answer, charged once', async t => {
  for (const [engine, env] of await engines(t)) {
    await t.test(engine, async t => {
      const m = await merchant(t, env)
      const buyer = await m.paid.newBuyer(BUYER_TOKENS)
      const { header, signature } = await m.payment(buyer)
      const before = await m.balances(buyer.address)
      m.cluster.delaySendReply(300)
      let released = () => {}
      m.route.beforeWrite = async () => await new Promise<void>(resolve => { released = resolve })
      const leaving = new AbortController()
      const first = fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': header }, signal: leaving.signal }).then(() => 'answered', () => 'left')
      await until(async () => (await m.app.store.claims.status(signature))?.status === 'sent', 10_000)
      leaving.abort()
      t.equal(await first, 'left', 'the client left while the transaction was on its way')
      await until(async () => await auditOutcome(m.app, signature) === 'CLIENT_ABORTED_AFTER_PAYMENT', 10_000)
      m.route.beforeWrite = undefined
      released()
      m.cluster.delaySendReply(null)

      const runs = { count: 0 }
      m.route.handler = async () => { runs.count++; return DATA }
      const again = await getWith(m, { 'payment-signature': header })
      t.equal(again.status, 200, 're-delivered')
      t.same(again.body, DATA)
      t.equal(again.redelivered, 'true', 'marked as a re-delivery')
      t.match(again.receipt, { success: true, transaction: signature, payer: buyer.address }, 'the original receipt')
      await assertOriginalReceipt(t, m.app, signature, again.receipt)
      t.equal(runs.count, 0, 'nothing computed again')
      await until(async () => await auditOutcome(m.app, signature) === 'DELIVERED')

      const third = await getWith(m, { 'payment-signature': header })
      t.equal(third.status, 402, 'once it reached the buyer, the payment is used')
      t.equal(third.body.code, 'PAYMENT_ALREADY_USED')

      const after = await m.balances(buyer.address)
      t.equal(m.cluster.forwardedSends(), 1, 'one transfer reached the chain')
      t.equal(after.merchant - before.merchant, PRICE, 'the merchant got the price once')
      t.equal(before.buyer - after.buyer, PRICE, 'the buyer paid it once')
    })
  }
})

t.test('an answer that reached the buyer is used: the same payload is PAYMENT_ALREADY_USED', async t => {
  const m = await merchant(t, {})
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const { header } = await m.payment(buyer)
  t.equal((await m.get(header)).status, 200)
  const again = await m.get(header)
  t.equal(again.status, 402)
  t.equal(again.code, 'PAYMENT_ALREADY_USED')
})

t.test('pay-then-prove: a lost answer comes again for the same signature, payer and request; not for another request', async t => {
  const m = await merchant(t, {})
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const signature = await m.paid.pay(buyer, PRICE)
  const proof = proofHeaders(signature, buyer.address)
  await getAndLeaveAfterSettlement(m, proof, signature)

  const other = await getWith(m, proof, '/test/paid?other=1')
  t.equal(other.status, 402, 'other arguments: not this answer')
  t.equal(other.body.code, 'PAYMENT_ALREADY_USED')
  const stranger = await m.paid.newBuyer(BUYER_TOKENS)
  const wrongPayer = await getWith(m, proofHeaders(signature, stranger.address))
  t.equal(wrongPayer.status, 402, 'another payer named: refused')

  const again = await getWith(m, proof)
  t.equal(again.status, 200)
  t.same(again.body, DATA)
  t.equal(again.redelivered, 'true')
  t.match(again.receipt, { transaction: signature, payer: buyer.address })
  await assertOriginalReceipt(t, m.app, signature, again.receipt)
  const used = await getWith(m, proof)
  t.equal(used.status, 402)
  t.equal(used.body.code, 'PAYMENT_ALREADY_USED', 'delivered: used')
})

t.test('MPP push: a lost answer comes again to the same credential, charged once; then the credential is used', async t => {
  const m = await merchant(t, {})
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const signature = await m.paid.pay(buyer, PRICE)
  const challenges = Challenge.deserializeList((await fetch(`${m.url}/test/paid`)).headers.get('www-authenticate') ?? '')
  const push = challenges.find(c => (c.request.methodDetails as { feePayer?: boolean }).feePayer !== true) as Challenge.Challenge
  const credential = { authorization: Credential.serialize({ challenge: push, payload: { type: 'signature', signature } }) }
  await getAndLeaveAfterSettlement(m, credential, signature)
  const before = await tokenBalanceOf(m.paid, m.paid.merchant.address)

  const res = await fetch(`${m.url}/test/paid`, { headers: credential })
  t.equal(res.status, 200)
  t.same(await res.json(), DATA)
  t.equal(res.headers.get('x-payment-redelivered'), 'true')
  t.match(Receipt.fromResponse(res), { method: 'solana', reference: signature, status: 'success' })
  const used = await getWith(m, credential)
  t.equal(used.body.code, 'PAYMENT_ALREADY_USED', 'delivered: used')
  t.equal(await tokenBalanceOf(m.paid, m.paid.merchant.address), before, 'nothing charged again')
})

t.test('REDELIVERY=buyer-only: a lost answer comes again only to a request that proves it is the buyer\'s', async t => {
  const m = await merchant(t, { REDELIVERY: 'buyer-only' })
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)

  // Pay-then-prove: the wallet's signature over the request proves it.
  const signature = await m.paid.pay(buyer, PRICE)
  const proof = proofHeaders(signature, buyer.address)
  await getAndLeaveAfterSettlement(m, proof, signature)
  const bare = await getWith(m, proof)
  t.equal(bare.status, 402, 'the public signature alone does not fetch it')
  t.equal(bare.body.code, 'PAYMENT_ALREADY_USED')
  const signed = await getWith(m, { ...proof, 'x-payment-wallet-signature': await signProof(buyer, signature, 'GET', '/test/paid') as string })
  t.equal(signed.status, 200)
  t.equal(signed.redelivered, 'true')

  // x402: the payment-identifier (never on chain) proves it.
  const required = await requiredFor(m, '/test/paid')
  const { tx, signature: paid } = await m.payment(buyer)
  const id = generatePaymentId()
  await getAndLeaveAfterSettlement(m, { 'payment-signature': v2HeaderFor(m, tx, required, id) }, paid)
  const withoutId = await getWith(m, { 'payment-signature': v2HeaderFor(m, tx, required) })
  t.equal(withoutId.status, 402, 'the rebuilt payload without the id does not fetch it')
  t.equal(withoutId.body.code, 'PAYMENT_ALREADY_USED')
  const withId = await getWith(m, { 'payment-signature': v2HeaderFor(m, tx, required, id) })
  t.equal(withId.status, 200)
  t.equal(withId.redelivered, 'true')
})

t.test('payment-identifier: the same id and request answer the kept delivery (a second payment is never sent); another request is a conflict', async t => {
  const m = await merchant(t, {})
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const required = await requiredFor(m, '/test/paid')
  t.match(required, { extensions: { 'payment-identifier': { info: { required: false } } } }, 'advertised in the 402')
  const before = await m.balances(buyer.address)
  const id = generatePaymentId()
  const first = await m.payment(buyer)
  const delivered = await getWith(m, { 'payment-signature': v2HeaderFor(m, first.tx, required, id) })
  t.equal(delivered.status, 200)
  t.equal(delivered.redelivered, null)

  const same = await getWith(m, { 'payment-signature': v2HeaderFor(m, first.tx, required, id) })
  t.equal(same.status, 200, 'the same payment and id: the kept answer, even after it reached the buyer')
  t.equal(same.redelivered, 'true')
  t.same(same.receipt, delivered.receipt)
  t.match(delivered.receipt, { extensions: { 'offer-receipt': { info: { receipt: { format: 'jws', signature: String } } } } }, 'the original signed receipt, kept with the answer')

  // A retry that rebuilt its payment (a new transaction) under the same id: answered from the first, never sent.
  const second = await m.payment(buyer)
  const rebuilt = await getWith(m, { 'payment-signature': v2HeaderFor(m, second.tx, required, id) })
  t.equal(rebuilt.status, 200)
  t.equal(rebuilt.redelivered, 'true')
  t.same(rebuilt.receipt, delivered.receipt, 'the first payment\'s receipt')
  t.equal(m.cluster.forwardedSends(), 1, 'the second transaction never reached the chain')

  const otherRequired = await requiredFor(m, '/test/paid?other=1')
  const third = await m.payment(buyer)
  const conflict = await getWith(m, { 'payment-signature': v2HeaderFor(m, third.tx, otherRequired, id) }, '/test/paid?other=1')
  t.equal(conflict.status, 409, 'the same id for another request')
  t.equal(conflict.body.code, 'PAYMENT_ID_CONFLICT')

  const malformed = await getWith(m, { 'payment-signature': v2HeaderFor(m, third.tx, required, { 'payment-identifier': { info: { required: false, id: 'short' } } }) })
  t.equal(malformed.status, 402)
  t.equal(malformed.body.code, 'X402_PAYMENT_ID_INVALID')

  const after = await m.balances(buyer.address)
  t.equal(before.buyer - after.buyer, PRICE, 'charged once')
  t.equal(after.merchant - before.merchant, PRICE)
})

t.test('after DELIVERY_RETENTION_SECONDS a lost answer is gone: PAYMENT_ALREADY_USED, and pruning removes it', async t => {
  const m = await merchant(t, { DELIVERY_RETENTION_SECONDS: '1' })
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const signature = await m.paid.pay(buyer, PRICE)
  const proof = proofHeaders(signature, buyer.address)
  await getAndLeaveAfterSettlement(m, proof, signature)
  t.ok(await m.app.store.claims.keptAnswer(signature), 'kept within the window')
  await until(async () => await m.app.store.claims.keptAnswer(signature) === undefined, 3000)
  const late = await getWith(m, proof)
  t.equal(late.status, 402)
  t.equal(late.body.code, 'PAYMENT_ALREADY_USED')
  t.equal(await m.app.store.claims.pruneAnswers(), 1, 'pruned')
})

t.test('an answer not known to have reached its buyer: 409 while it may still be written; the same payment gets it once its holder\'s lease ran out', async t => {
  const m = await merchant(t, {})
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const keep = async (signature: string, keptAt: number) => {
    const claim = { signature, claimId: `held-${signature.slice(0, 8)}`, flow: 'proof' as const, service: 'fetch-price', payer: buyer.address, amount: PRICE, resource: `${m.url}/test/paid`, leaseMs: 5000, now: keptAt }
    t.equal((await m.app.store.claims.claim(claim)).claimed, true)
    const answer = { requestKey: requestKey('GET', '/test/paid'), status: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify(DATA), receipt: { success: true, transaction: signature }, retentionMs: 3_600_000 }
    t.equal(await m.app.store.claims.redeem({ signature, claimId: claim.claimId, now: keptAt, answer }), true)
  }

  const writing = await m.paid.pay(buyer, PRICE)
  await keep(writing, Date.now())
  const duplicate = await getWith(m, proofHeaders(writing, buyer.address))
  t.equal(duplicate.status, 409, 'a duplicate while the first delivery may still be written')
  t.equal(duplicate.body.code, 'PAYMENT_IN_PROGRESS')

  // A holder that died between redeeming and writing (a crash): nothing says the answer reached.
  const orphan = await m.paid.pay(buyer, PRICE)
  await keep(orphan, Date.now() - 6000)
  const again = await getWith(m, proofHeaders(orphan, buyer.address))
  t.equal(again.status, 200, 'after the lease: re-delivered')
  t.equal(again.redelivered, 'true')
  t.same(again.body, DATA)
})
