import { randomBytes } from 'node:crypto'
import t, { type Test } from 'tap'
import { getAddMemoInstruction } from '@solana-program/memo'
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type KeyPairSigner
} from '@solana/kit'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../../lib/errors/app-error.js'
import { build, sqliteOf } from '../helper.js'
import { DECIMALS, proofHeaders, startPaidChain, type PaidChain } from '../fixtures/paid-chain.js'
import { createFeePayer, startX402Merchant } from '../fixtures/x402-merchant.js'
import { buildExactPayment, computeUnitLimit, computeUnitPrice, paymentRequiredOf, v1Header, transactionIdOf, v2Header } from '../fixtures/x402-payment.js'

const PRICE = 50_000n
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr')
// Calls the service makes to judge or settle a payment (the background balance and health checks are not among them).
const PAYMENT_RPC_METHODS = ['getTransaction', 'simulateTransaction', 'sendTransaction', 'getSignatureStatuses', 'getAccountInfo', 'getTokenAccountBalance']

interface Answer { status: number, code: string | undefined, body: Record<string, unknown>, headers: Headers }

async function answerOf (res: Response): Promise<Answer> {
  const body = await res.json() as Record<string, unknown>
  return { status: res.status, code: body.code as string | undefined, body, headers: res.headers }
}

async function get (url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return await answerOf(await fetch(url, { headers }))
}

/**
 * The x402 transaction id: the fee payer's signature over the message, as the merchant will make
 * it (Ed25519 is deterministic), computed here without asking the service.
 */
/** A fresh buyer's v2 payment of the price for /test/paid, made from its 402: the header and the transaction id. */
async function newPayment (m: { url: string, paid: PaidChain, feePayer: KeyPairSigner }) {
  const challenge = await fetch(`${m.url}/test/paid`)
  const required = paymentRequiredOf(challenge.headers)
  const buyer = await m.paid.newBuyer(10_000_000n)
  const tx = await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
  return { challengeStatus: challenge.status, buyer, tx, header: v2Header(tx, required.accepts[0], required.resource), signature: await transactionIdOf(tx, m.feePayer) }
}

function auditCount (app: FastifyInstance, signature: string): number {
  return sqliteOf(app).prepare('SELECT count(*) FROM audit_log WHERE signature = ?').pluck().get(signature) as number
}

interface ReputationFigures { transactions: number, failures: number }

async function reputationOf (url: string): Promise<ReputationFigures> {
  const res = await fetch(`${url}/reputation`)
  const body = await res.json() as { transactions: number, failures: Record<string, number> }
  return { transactions: body.transactions, failures: Object.values(body.failures).reduce((sum, n) => sum + n, 0) }
}

t.test('payments are bound to their flow and their resource', async (t) => {
  const m = await startX402Merchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '1000' }, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const { paid, app } = m

  t.test('A. a pending x402 payment cannot be taken through the proof headers', async (t) => {
    const { challengeStatus, buyer, header, signature } = await newPayment(m)
    t.equal(challengeStatus, 402)
    const before = await m.merchantBalance()

    // The transfer lands, but its confirmation cannot be read in time: the claim stays sent.
    paid.chain.failMethod('getSignatureStatuses', { httpStatus: 503 })
    const pending = await get(`${m.url}/test/paid`, { 'payment-signature': header })
    paid.chain.failMethod('getSignatureStatuses', null)
    t.equal(pending.status, 503)
    t.equal(pending.code, 'X402_SETTLEMENT_PENDING')
    t.notOk(pending.body.delivered, 'no data')
    t.equal((await app.store.claims.status(signature))?.status, 'sent', 'the claim waits for the chain')
    t.equal(await m.merchantBalance() - before, PRICE, 'the transfer landed meanwhile')
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n - PRICE)

    // A chain watcher saw the landed transfer to the merchant and tries its signature as a proof.
    for (const wallet of [m.feePayer.address, buyer.address]) {
      const stolen = await get(`${m.url}/test/paid`, proofHeaders(signature, wallet))
      t.equal(stolen.status, 402, `proof with x-payment-wallet ${wallet === buyer.address ? 'the buyer' : 'the fee payer'}`)
      t.equal(stolen.code, 'PAYMENT_FLOW_MISMATCH')
      t.notOk(stolen.body.delivered, 'no data')
      t.equal((await app.store.claims.status(signature))?.status, 'sent', 'the claim is untouched')
    }

    const retry = await get(`${m.url}/test/paid`, { 'payment-signature': header })
    t.equal(retry.status, 200, 'the buyer\'s retry of the same payload delivers')
    t.same(retry.body, { delivered: true })
    t.ok(retry.headers.get('payment-response'), 'with its receipt')
    t.equal((await app.store.claims.status(signature))?.status, 'redeemed')
    t.equal(await m.merchantBalance() - before, PRICE, 'the merchant got the price once')
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n - PRICE, 'the buyer paid once')

    const after = await get(`${m.url}/test/paid`, proofHeaders(signature, buyer.address))
    t.equal(after.status, 402)
    t.equal(after.code, 'PAYMENT_ALREADY_USED', 'spent: the proof headers cannot have it either')
  })

  t.test('B. a v2 payload is bound to its resource; a v1 payload carries none', async (t) => {
    const sol = `${m.url}/api/fetch-price/SOL`
    const jup = `${m.url}/api/fetch-price/JUP`
    const challenge = await fetch(sol)
    t.equal(challenge.status, 402)
    const required = paymentRequiredOf(challenge.headers)
    t.equal(required.resource.url, sol, 'the 402 names its resource')
    const buyer = await paid.newBuyer(10_000_000n)
    const tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
    const header = v2Header(tx, required.accepts[0], required.resource)
    const before = await m.merchantBalance()

    const elsewhere = await get(jup, { 'payment-signature': header })
    t.equal(elsewhere.status, 402)
    t.equal(elsewhere.code, 'X402_RESOURCE_MISMATCH', 'a payment offered for SOL does not buy JUP')
    t.notOk(elsewhere.body.data, 'no data')
    t.equal(await m.merchantBalance(), before, 'nothing moved')
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n)
    t.equal(await app.store.claims.status(await transactionIdOf(tx, m.feePayer)), undefined, 'nothing claimed')

    const own = await get(sol, { 'payment-signature': header })
    t.equal(own.status, 200, 'the same payload on its own URL works')
    t.ok(own.body.data, 'with the data')
    t.equal(await m.merchantBalance() - before, PRICE)
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n - PRICE)

    // x402 v1 payloads carry no resource (only scheme, network and the transaction): nothing binds
    // them to a URL, so one made after SOL's 402 buys any URL of the same service.
    const v1Tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
    const v1 = await get(jup, { 'x-payment': v1Header(v1Tx) })
    t.equal(v1.status, 200, 'a v1 payload buys the other URL')
    t.ok(v1.body.data)
    t.ok(v1.headers.get('x-payment-response'), 'with the v1 receipt')
    t.equal(await m.merchantBalance() - before, 2n * PRICE)
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n - 2n * PRICE)
  })

  t.test('F. paid answers and 402s carry Cache-Control: no-store', async (t) => {
    const url = `${m.url}/api/fetch-price/SOL`
    const challenge = await fetch(url)
    t.equal(challenge.status, 402)
    t.equal(challenge.headers.get('cache-control'), 'no-store', 'the unpaid 402')
    const required = paymentRequiredOf(challenge.headers)
    const buyer = await paid.newBuyer(10_000_000n)
    const before = await m.merchantBalance()

    const tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
    const refused = await get(`${m.url}/api/fetch-price/JUP`, { 'payment-signature': v2Header(tx, required.accepts[0], required.resource) })
    t.equal(refused.status, 402)
    t.equal(refused.code, 'X402_RESOURCE_MISMATCH')
    t.equal(refused.headers.get('cache-control'), 'no-store', 'a refused x402 payment\'s 402')

    const viaX402 = await get(url, { 'payment-signature': v2Header(tx, required.accepts[0], required.resource) })
    t.equal(viaX402.status, 200)
    t.ok(viaX402.body.data)
    t.equal(viaX402.headers.get('cache-control'), 'no-store', 'a 200 bought with x402 v2')
    t.equal(await m.merchantBalance() - before, PRICE)

    const short = await paid.pay(buyer, PRICE - 1n)
    const tooLow = await get(url, proofHeaders(short, buyer.address))
    t.equal(tooLow.status, 402)
    t.equal(tooLow.code, 'AMOUNT_TOO_LOW')
    t.equal(tooLow.headers.get('cache-control'), 'no-store', 'a refused proof\'s 402')

    const proof = await paid.pay(buyer, PRICE)
    const viaProof = await get(url, proofHeaders(proof, buyer.address))
    t.equal(viaProof.status, 200)
    t.ok(viaProof.body.data)
    t.equal(viaProof.headers.get('cache-control'), 'no-store', 'a 200 bought with the proof headers')
    t.equal(await m.merchantBalance() - before, 3n * PRICE - 1n, 'the x402 payment, the short transfer and the proof')
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n - 3n * PRICE + 1n)
  })
})

/** A merchant like startX402Merchant's, whose payment mint is a Token-2022 mint with a 1% transfer fee. */
async function startToken2022Merchant (t: Test) {
  const paid = await startPaidChain(t, {
    mint: { program: 'token-2022', extensions: { transferFee: { basisPoints: 100, maximumFee: 1_000_000n } } }
  })
  const { feePayer, feePayerPath } = await createFeePayer(t, paid)
  const app = await build(t, { ...paid.env, X402_NETWORK: 'solana-devnet', X402_FEE_PAYER_KEYPAIR_PATH: feePayerPath }, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const ataOf = async (owner: Address) => (await findAssociatedTokenPda({ owner, mint: paid.mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS }))[0]
  async function tokenBalance (owner: Address): Promise<bigint> {
    const account = await paid.chain.rpc.getTokenAccountBalance(await ataOf(owner), { commitment: 'confirmed' }).send().catch(() => undefined)
    return account === undefined ? 0n : BigInt(account.value.amount)
  }
  return { paid, app, url, feePayer, ataOf, tokenBalance }
}

/** An `exact` payment in a Token-2022 mint, built as signExactTransfer builds one (the official client cannot pay it here). */
async function exactToken2022Payment (paid: PaidChain, buyer: KeyPairSigner, feePayer: Address, destination: Address, source: Address, amount: bigint): Promise<string> {
  const { value: lifetime } = await paid.chain.rpc.getLatestBlockhash().send()
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    m => setTransactionMessageFeePayer(feePayer, m),
    m => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    m => appendTransactionMessageInstructions([
      computeUnitLimit(20_000),
      computeUnitPrice(1n),
      getTransferCheckedInstruction({ source, mint: paid.mint, destination, authority: createNoopSigner(buyer.address), amount, decimals: DECIMALS }),
      getAddMemoInstruction({ memo: randomBytes(16).toString('hex') }, { programAddress: MEMO })
    ], m)
  )
  return getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.keyPair], compileTransaction(message)))
}

t.test('C. a Token-2022 payment mint with a transfer fee: x402 is judged by what arrives', async (t) => {
  const m = await startToken2022Merchant(t)
  const { paid } = m
  const buyer = await paid.newBuyer(10_000_000n)
  const challenge = await fetch(`${m.url}/test/paid`)
  t.equal(challenge.status, 402)
  const required = paymentRequiredOf(challenge.headers)
  t.equal(required.accepts[0].asset, paid.mint, 'the Token-2022 mint is offered')
  const before = await m.tokenBalance(paid.merchant.address)

  const tx = await exactToken2022Payment(paid, buyer, m.feePayer.address, await m.ataOf(paid.merchant.address), await m.ataOf(buyer.address), PRICE)
  const exact = await get(`${m.url}/test/paid`, { 'payment-signature': v2Header(tx, required.accepts[0], required.resource) })
  t.equal(exact.status, 402)
  t.equal(exact.code, 'X402_AMOUNT_MISMATCH', '1% would be withheld: 49500 would arrive')
  t.notOk(exact.body.delivered, 'no data')
  t.equal(await m.tokenBalance(paid.merchant.address), before, 'nothing moved')
  t.equal(await m.tokenBalance(buyer.address), 10_000_000n)
  t.equal(await m.app.store.claims.status(await transactionIdOf(tx, m.feePayer)), undefined, 'nothing claimed')

  const proof = await paid.pay(buyer, PRICE)
  const viaProof = await get(`${m.url}/test/paid`, proofHeaders(proof, buyer.address))
  t.equal(viaProof.status, 402)
  t.equal(viaProof.code, 'AMOUNT_TOO_LOW', 'the proof headers judge the same mint the same way')
})

/** A merchant whose paid test route always fails with the handler's own 503. */
async function startFailingMerchant (t: Test, env: Record<string, string>) {
  return await startX402Merchant(t, env, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => {
      throw new AppError('UPSTREAM_UNAVAILABLE', 'the price source is down')
    })
  })
}

t.test('D. replays of one unsettled payment do not poison the record', async (t) => {
  const REPLAYS = 200
  const m = await startFailingMerchant(t, { PROOF_FAILURE_LIMIT: '0', RATE_LIMIT_MAX: '0' })
  const { paid, app } = m

  t.test('one x402 payload replayed against a failing handler', async (t) => {
    const { buyer, header, signature } = await newPayment(m)
    const before = await m.merchantBalance()
    const reputation = await reputationOf(m.url)

    const answers = new Map<string, number>()
    for (let i = 0; i < REPLAYS; i++) {
      const res = await get(`${m.url}/test/paid`, { 'payment-signature': header })
      const key = `${res.status} ${res.code ?? ''}`
      answers.set(key, (answers.get(key) ?? 0) + 1)
    }
    t.same(Object.fromEntries(answers), { '503 UPSTREAM_UNAVAILABLE': REPLAYS }, 'every answer is the handler\'s 503')
    t.equal(await m.merchantBalance(), before, 'nothing moved')
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n)
    t.equal(await app.store.claims.status(signature), undefined, 'the payment is still free')
    t.equal(auditCount(app, signature), 1, 'one audit row for the payment')
    t.same(sqliteOf(app).prepare('SELECT signature, outcome, flow FROM audit_log WHERE payer = ?').all(buyer.address),
      [{ signature, outcome: 'UPSTREAM_UNAVAILABLE', flow: 'x402-v2' }], 'the row is the fee payer\'s signature, and the only one of the payer')
    const now = await reputationOf(m.url)
    t.ok(now.transactions - reputation.transactions <= 1, `transactions moved by at most one (${reputation.transactions} → ${now.transactions})`)
    t.ok(now.failures - reputation.failures <= 1, `failures moved by at most one (${reputation.failures} → ${now.failures})`)
  })

  t.test('one proof replayed against a failing handler', async (t) => {
    const buyer = await paid.newBuyer(10_000_000n)
    const before = await m.merchantBalance()
    const signature = await paid.pay(buyer, PRICE)
    t.equal(await m.merchantBalance() - before, PRICE, 'the transfer the proof names')
    const reputation = await reputationOf(m.url)

    const answers = new Map<string, number>()
    for (let i = 0; i < REPLAYS; i++) {
      const res = await get(`${m.url}/test/paid`, proofHeaders(signature, buyer.address))
      const key = `${res.status} ${res.code ?? ''}`
      answers.set(key, (answers.get(key) ?? 0) + 1)
    }
    t.same(Object.fromEntries(answers), { '503 UPSTREAM_UNAVAILABLE': REPLAYS }, 'every answer is the handler\'s 503')
    t.equal(await m.merchantBalance() - before, PRICE, 'nothing else moved')
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n - PRICE)
    t.equal(await app.store.claims.status(signature), undefined, 'the proof is still unspent')
    t.equal(auditCount(app, signature), 1, 'one audit row for the payment')
    const now = await reputationOf(m.url)
    t.ok(now.transactions - reputation.transactions <= 1, `transactions moved by at most one (${reputation.transactions} → ${now.transactions})`)
    t.ok(now.failures - reputation.failures <= 1, `failures moved by at most one (${reputation.failures} → ${now.failures})`)
  })
})

t.test('E. PROOF_FAILURE_LIMIT counts handler failures of a held payment', async (t) => {
  const LIMIT = 3
  const m = await startFailingMerchant(t, { PROOF_FAILURE_LIMIT: String(LIMIT) })
  const { paid } = m
  const challenge = await fetch(`${m.url}/test/paid`)
  const required = paymentRequiredOf(challenge.headers)
  const buyer = await paid.newBuyer(10_000_000n)
  const tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
  const header = v2Header(tx, required.accepts[0], required.resource)
  const before = await m.merchantBalance()

  for (let i = 1; i <= LIMIT; i++) {
    const failed = await get(`${m.url}/test/paid`, { 'payment-signature': header })
    t.equal(failed.status, 503, `failure ${i}`)
    t.equal(failed.code, 'UPSTREAM_UNAVAILABLE', 'the handler\'s own failure')
  }

  paid.chain.resetStats()
  const limited = await get(`${m.url}/test/paid`, { 'payment-signature': header })
  const stats = paid.chain.stats()
  t.equal(limited.status, 429, `after ${LIMIT} failures (answered ${limited.status} ${limited.code ?? ''})`)
  t.equal(limited.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers.get('retry-after')) >= 1, 'with Retry-After')
  t.same(PAYMENT_RPC_METHODS.filter(method => stats[method] !== undefined), [], `no RPC call for the limited attempt (${JSON.stringify(stats)})`)
  t.equal(await m.merchantBalance(), before, 'nothing moved')
  t.equal(await m.tokenBalance(buyer.address), 10_000_000n)
})
