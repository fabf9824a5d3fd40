import { randomUUID } from 'node:crypto'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createSqliteStore } from '../../../db/sqlite/sqlite-store.js'
import { CATALOGUE } from '../../../lib/catalogue/catalogue.js'
import { createRedelivery } from '../../../lib/contract/redelivery.js'
import { paymentAlreadyUsed, paymentInProgress } from '../../../lib/contract/refusal.js'
import { createDeliveryCore } from '../../../lib/delivery/paid-delivery.js'
import { createHttpChallenges } from '../../../lib/doors/http-challenges.js'
import type { HttpAnswer } from '../../../lib/http/http-answer.js'
import { createHttpDoor, type HttpExchange } from '../../../lib/doors/http-door.js'
import { httpPaymentMethods } from '../../../lib/doors/http-methods.js'
import type { HttpPaymentMethod } from '../../../lib/doors/http-payment-method.js'
import type { PaymentAttemptEvent } from '../../../lib/metrics/events.js'
import { createPaymentVerifier } from '../../../lib/payment/payment-verifier.js'
import { createProofFailureLimit } from '../../../lib/payment/proof-failure-limit.js'
import { loadKeypairWithNodeKey } from '../../../lib/solana/keypair-file.js'
import { createRpcClient } from '../../../lib/solana/rpc-client.js'
import { x402Network } from '../../../lib/x402/networks.js'
import { createPayerFailureBudget } from '../../../lib/x402/payer-failures.js'
import { createX402Payments } from '../../../lib/x402/x402-payments.js'
import { until } from '../../fixtures/cluster-merchant.js'
import { proofHeaders, startPaidChain, tokenBalanceOf } from '../../fixtures/paid-chain.js'
import { createFeePayer } from '../../fixtures/x402-merchant.js'
import { testFolder } from '../../fixtures/test-folder.js'

// The HTTP door picks the way to pay a request names from a list (lib/doors/http-methods.ts). In
// process, on real parts: the SQLite store, the delivery core, the proof and x402 methods on the
// local chain, the 402 answers. A way to pay the merchant does not have (a voucher) is added to
// the list as one entry: the gate recognises it, refuses it beside another way, and opens it,
// with no change to the gate.

const PRODUCT = CATALOGUE.products[0]
const BASE_URL = 'http://merchant.test'
const PATH = '/api/paid/thing'
const LEASE_MS = 30_000
const VOUCHER_HEADER = 'x-voucher'

/** The door over the real parts, with `extra` ways to pay after the merchant's own. */
async function doorUnderTest (t: Test, extra: (store: ReturnType<typeof createSqliteStore>) => HttpPaymentMethod[] = () => []) {
  const paid = await startPaidChain(t)
  const { feePayer, feePayerPath } = await createFeePayer(t, paid)
  const store = createSqliteStore(join(testFolder(t), 'store.db'))
  t.teardown(() => store.close())
  const rpc = createRpcClient(paid.chain.url, 2000)
  const redeliveryOf = createRedelivery({ claims: store.claims, mode: 'payment', unknownForMs: LEASE_MS })
  const network = x402Network('solana-devnet')
  const x402 = await createX402Payments({
    rpc,
    claims: store.claims,
    feePayer,
    feePayerNodeKey: (await loadKeypairWithNodeKey(feePayerPath)).nodeKey,
    network,
    payTo: paid.merchant.address,
    mint: paid.mint,
    commitment: 'confirmed',
    leaseMs: LEASE_MS,
    settlementTimeoutMs: 5000,
    maxTimeoutSeconds: 60,
    maxPriorityFeeLamports: 100_000n,
    payerFailures: createPayerFailureBudget({ limit: 5, windowMs: 60_000 }),
    redeliveryOf,
    catalogue: CATALOGUE
  })
  const proofs = createPaymentVerifier({
    rpc,
    claims: store.claims,
    ensureNetwork: async () => {},
    payTo: paid.merchant.address,
    mint: paid.mint,
    commitment: 'confirmed',
    maxAgeSeconds: 300,
    leaseMs: LEASE_MS,
    notFoundWaitMs: 0,
    x402FeePayer: feePayer.address,
    receiptNetwork: 'solana-devnet',
    redeliveryOf
  })
  const failureLimit = createProofFailureLimit({ limit: 100, windowMs: 60_000 })
  const core = createDeliveryCore({
    claims: store.claims,
    audit: store.audit,
    leaseMs: LEASE_MS,
    retentionMs: 3_600_000,
    recordFailure: (client, code) => failureLimit.record(client, code),
    countHandlerFailure: client => failureLimit.count(client),
    countUnpaid: (service, code) => store.audit.countUnpaid(service, code),
    log: { warn: () => {}, error: () => {} }
  })
  const challenges = createHttpChallenges({
    terms: { x402Network: 'solana-devnet', payTo: paid.merchant.address, mint: paid.mint, symbol: 'USDC', label: 'test merchant', maxAgeSeconds: 300, walletSignatureRequired: false, redelivery: 'payment', feePayer: feePayer.address },
    recipientTokenAccount: () => undefined,
    publicBaseUrl: BASE_URL,
    catalogue: CATALOGUE,
    paymentRequired: x402.paymentRequired
  })
  const door = createHttpDoor({
    core,
    methods: [...httpPaymentMethods({ proofs, x402, catalogue: CATALOGUE, requireWalletSignature: false }), ...extra(store)],
    challenges,
    publicBaseUrl: BASE_URL,
    checkFailureLimit: client => failureLimit.check(client),
    countUnpaid: service => store.audit.countUnpaid(service, 'PAYMENT_REQUIRED')
  })

  const attempts: PaymentAttemptEvent[] = []
  const onAttempt = (event: unknown) => attempts.push(event as PaymentAttemptEvent)
  subscribe('token-merchant:payment-attempt', onAttempt)
  t.teardown(() => unsubscribe('token-merchant:payment-attempt', onAttempt))

  return { paid, store, door, attempts }
}

/** A way to pay the merchant does not have: a prepaid voucher in one header, held in the claim store and redeemed on delivery. */
function voucher (store: ReturnType<typeof createSqliteStore>): HttpPaymentMethod {
  return {
    headers: [VOUCHER_HEADER],
    called: 'a voucher',
    receiptHeader: 'x-payment-response',
    // The audit flows are a closed list (a new label is a store migration): the voucher borrows one no HTTP way uses.
    flow: 'a2a',
    async open ({ request, service, resource, requestKey, attempt }) {
      attempt()
      const payment = {
        signature: `voucher-${String(request.headers[VOUCHER_HEADER])}`,
        claimId: randomUUID(),
        payer: 'voucher holder',
        amount: PRODUCT.price,
        service,
        flow: 'a2a' as const,
        resource,
        requestKey
      }
      const claimed = await store.claims.claim({ ...payment, flow: 'proof', leaseMs: LEASE_MS })
      if (!claimed.claimed) return paymentAlreadyUsed('proof')
      return {
        kind: 'held',
        payment,
        async settle (answer) {
          const receipt = { success: true, voucher: payment.signature }
          const redeemed = await store.claims.redeem({ signature: payment.signature, claimId: payment.claimId, answer: answer === undefined ? undefined : { ...answer, receipt } })
          return redeemed ? { kind: 'settled' as const, receipt } : paymentInProgress('proof-taken-over')
        }
      }
    }
  }
}

interface TestExchange extends HttpExchange {
  sent: HttpAnswer[]
  answerHeaders: Record<string, string>
  /** The answer left (true) or the client went away (false): the door records the payment. */
  finish: (reached: boolean) => void
}

/** One request as the framework's glue hands it to the door (plugins/app/http-exchange.ts over Fastify). */
function exchangeOf (headers: IncomingHttpHeaders, method = 'GET'): TestExchange {
  let finished: ((reached: boolean) => void) | undefined
  const exchange: TestExchange = {
    method,
    url: PATH,
    headers,
    params: {},
    protocol: 'http',
    host: 'merchant.test',
    ip: '203.0.113.7',
    id: randomUUID(),
    log: { warn: () => {}, error: () => {} },
    statusCode: 200,
    contentType: 'application/json; charset=utf-8',
    outcome: undefined,
    payment: undefined,
    sent: [],
    answerHeaders: {},
    send (answer) { exchange.sent.push(answer) },
    setAnswer (answerHeaders, statusCode) {
      Object.assign(exchange.answerHeaders, answerHeaders)
      if (statusCode !== undefined) (exchange as { statusCode: number }).statusCode = statusCode
    },
    whenFinished (then) { finished = then },
    finish (reached) { finished?.(reached) }
  }
  return exchange
}

/** The delivery the gate holds for `exchange` (the handler runs next). */
function heldBy (exchange: TestExchange) {
  if (exchange.payment === undefined) throw new Error('the gate holds no payment')
  return exchange.payment
}

const pick = (body: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map(key => [key, body[key]]))

/** The gate's answer to a request it refused or left unpaid: status and JSON body. */
function answered (exchange: TestExchange) {
  const [answer] = exchange.sent
  return { statusCode: answer.statusCode, headers: answer.headers, body: JSON.parse(answer.body) as Record<string, unknown> }
}

t.test('the ways to pay the merchant has: none named is unpaid at once, two named are one conflict with today\'s words', async t => {
  const { door, attempts } = await doorUnderTest(t)

  const unpaid = exchangeOf({ 'x-payment-wallet-signature': 'only the extra header' })
  t.equal(door.gate(unpaid, PRODUCT.name), false, 'answered synchronously: no promise for a request without payment')
  t.match(answered(unpaid), { statusCode: 402, body: { code: 'PAYMENT_REQUIRED' } }, 'the wallet signature alone names no way to pay')
  t.ok(answered(unpaid).headers['payment-required'], 'the x402 v2 terms ride along')
  t.equal(door.gate(exchangeOf({ 'payment-signature': 'e30=' }, 'HEAD'), PRODUCT.name), false, 'HEAD answers like an unpaid GET')

  const conflicts: Array<[IncomingHttpHeaders, string[], string]> = [
    [{ ...proofHeaders('5'.repeat(88), '6'.repeat(44)), 'payment-signature': 'e30=' }, ['x-payment-signature', 'x-payment-wallet', 'payment-signature'], 'proof'],
    [{ 'payment-signature': 'e30=', 'x-payment': 'e30=' }, ['x-payment', 'payment-signature'], 'x402-v1'],
    [{ 'x-payment': ['e30=', 'e30='] }, ['x-payment'], 'x402-v1']
  ]
  for (const [headers, named, flow] of conflicts) {
    const exchange = exchangeOf(headers)
    t.ok(door.carriesPayment(headers), `${named.join(' + ')}: carries a payment`)
    t.equal(await door.gate(exchange, PRODUCT.name), false)
    const { statusCode, body } = answered(exchange)
    t.same({ statusCode, ...pick(body, ['headers', 'statusCode', 'error', 'message', 'code', 'requestId']) }, {
      statusCode: 400,
      headers: named,
      error: 'Bad Request',
      message: `One payment per request: send either the proof headers or one x402 header, not ${named.join(' + ')}`,
      code: 'PAYMENT_FORMS_CONFLICT',
      requestId: exchange.id
    }, `${named.join(' + ')}: the same answer as before the list`)
    t.same(attempts.at(-1), { service: PRODUCT.name, flow, outcome: 'PAYMENT_FORMS_CONFLICT' }, `counted in the flow of ${flow}, the first way named`)
  }
  t.notOk(door.carriesPayment({}), 'no payment header: carries nothing')
})

t.test('a proof from the list is opened by its own entry: verified on chain, held, redeemed as the answer leaves', async t => {
  const { paid, store, door } = await doorUnderTest(t, store => [voucher(store)])
  const buyer = await paid.newBuyer(PRODUCT.price * 2n)
  const before = await tokenBalanceOf(paid, paid.merchant.address)
  const signature = await paid.pay(buyer, PRODUCT.price)

  const exchange = exchangeOf(proofHeaders(signature, buyer.address))
  t.equal(await door.gate(exchange, PRODUCT.name), true, 'held: the handler runs next')
  t.equal(await door.deliver(exchange, '{"delivered":true}', heldBy(exchange)), '{"delivered":true}')
  exchange.finish(true)
  t.match(JSON.parse(Buffer.from(exchange.answerHeaders['x-payment-response'], 'base64').toString()), { success: true, transaction: signature, payer: buyer.address })
  t.equal((await store.claims.status(signature))?.status, 'redeemed')
  t.equal(await tokenBalanceOf(paid, paid.merchant.address) - before, PRODUCT.price, 'the price moved once, with the buyer\'s own transfer')
})

t.test('a voucher added to the list: recognised, refused beside another way, opened by the gate unchanged', async t => {
  const { store, door, attempts } = await doorUnderTest(t, store => [voucher(store)])

  // Recognised and opened: held by the gate, redeemed by the voucher's own settle, recorded in its flow.
  const exchange = exchangeOf({ [VOUCHER_HEADER]: 'V-1' })
  t.ok(door.carriesPayment(exchange.headers), 'the voucher header carries a payment')
  t.equal(await door.gate(exchange, PRODUCT.name), true, 'held: the handler runs next')
  t.match(exchange.payment, { state: 'held', payment: { signature: 'voucher-V-1', flow: 'a2a', resource: `${BASE_URL}${PATH}` } })
  t.equal(await door.deliver(exchange, '{"delivered":true}', heldBy(exchange)), '{"delivered":true}')
  exchange.finish(true)
  t.match(JSON.parse(Buffer.from(exchange.answerHeaders['x-payment-response'], 'base64').toString()), { voucher: 'voucher-V-1' }, 'its receipt in the receipt header')
  t.equal((await store.claims.status('voucher-V-1'))?.status, 'redeemed')
  const rows = () => store.db.prepare('SELECT outcome, flow FROM audit_log WHERE signature = ?').all('voucher-V-1')
  await until(() => rows().length > 0)
  t.match(rows(), [{ outcome: 'DELIVERED', flow: 'a2a' }], 'recorded in the voucher\'s flow')

  // The same voucher again: the voucher's own refusal, counted in its flow.
  const again = exchangeOf({ [VOUCHER_HEADER]: 'V-1' })
  t.equal(await door.gate(again, PRODUCT.name), false)
  t.match(answered(again), { statusCode: 402, body: { code: 'PAYMENT_ALREADY_USED' } })
  t.same(attempts.at(-1), { service: PRODUCT.name, flow: 'a2a', outcome: 'PAYMENT_ALREADY_USED' })

  // Beside another way to pay: one conflict, whose words name the voucher too.
  const both = exchangeOf({ 'x-payment': 'e30=', [VOUCHER_HEADER]: 'V-2' })
  t.equal(await door.gate(both, PRODUCT.name), false)
  const conflict = answered(both)
  t.same({ statusCode: conflict.statusCode, ...pick(conflict.body, ['code', 'message', 'headers']) }, {
    statusCode: 400,
    code: 'PAYMENT_FORMS_CONFLICT',
    message: 'One payment per request: send either the proof headers, one x402 header or a voucher, not x-payment + x-voucher',
    headers: ['x-payment', 'x-voucher']
  })
  t.same(attempts.at(-1), { service: PRODUCT.name, flow: 'x402-v1', outcome: 'PAYMENT_FORMS_CONFLICT' })
  t.equal(await store.claims.status('voucher-V-2'), undefined, 'nothing claimed for a conflict')
})
