import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { createKeyPairSignerFromBytes, generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { signRefundRequest } from '../../lib/refunds/refund-message.js'
import { createRefundTransfer } from '../../lib/refunds/refund-transfer.js'
import { createRefunder } from '../../lib/refunds/refunder.js'
import { clockedStore } from '../../db/clocked-store.js'
import type { BuildRefund } from '../../lib/refunds/refund-transfer.js'
import { generateKeypairBytes, writeKeypairFile } from '../../lib/solana/keypair-file.js'
import { sendTransaction } from '../../lib/x402/settlement.js'
import { proofHeaders, startPaidChain, tokenBalanceOf } from '../fixtures/paid-chain.js'
import { createFeePayer } from '../fixtures/x402-merchant.js'
import { build } from '../helper.js'

// Refunds on the local chain, balances read on chain: a payment whose delivery failed comes back
// to the paying token account exactly once, under races and a crash between send and record.
const WINDOW_SECONDS = 3600
const PRICE = 50_000n

t.test('refunds of payments never delivered', async t => {
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  const { feePayer, feePayerPath } = await createFeePayer(t, paid)
  // The merchant's own key, in a file: it signs the refunds out of its token account.
  const dir = mkdtempSync(join(tmpdir(), 'refunds-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const merchantPath = join(dir, 'merchant.json')
  const bytes = generateKeypairBytes()
  writeKeypairFile(merchantPath, bytes)
  const merchant = await createKeyPairSignerFromBytes(bytes)
  await paid.chain.createAta(paid.mint, merchant.address)
  const env = {
    ...paid.env,
    PAYMENT_ADDRESS: merchant.address,
    MERCHANT_KEYPAIR_PATH: merchantPath,
    X402_FEE_PAYER_KEYPAIR_PATH: feePayerPath,
    X402_NETWORK: 'solana-devnet',
    PRICE_API_URL: priceApi.url,
    PRICE_CACHE_TTL_MS: '0',
    DATABASE_PATH: join(dir, 'merchant.db'),
    REFUNDS: 'true',
    REFUND_WINDOW_SECONDS: String(WINDOW_SECONDS),
    REFUND_REQUEST_MAX: '1000'
  }
  let offsetMs = 0
  const clock = () => Date.now() + offsetMs
  const app = await build(t, env, undefined, undefined, undefined, clock)
  const balance = async (owner: Address) => await tokenBalanceOf(paid, owner)

  async function refundBody (payer: KeyPairSigner, txHash: string, options: { amount?: bigint, idempotencyKey?: string, signer?: KeyPairSigner } = {}) {
    const amount = options.amount ?? PRICE
    const idempotencyKey = options.idempotencyKey ?? randomUUID()
    const payerSignature = await signRefundRequest(options.signer ?? payer, txHash, amount, idempotencyKey)
    return { x402Version: 2, paymentReference: { txHash, network: 'solana-devnet' }, payer: payer.address, amount: amount.toString(), reason: 'the price lookup failed', idempotencyKey, payerSignature }
  }
  const ask = async (body: object, on: FastifyInstance = app) => await on.inject({ method: 'POST', url: '/api/refunds', payload: body })

  /** A pay-then-prove payment whose delivery failed (the price source down): the money moved, nothing was delivered. */
  async function failedDelivery (buyer: KeyPairSigner): Promise<string> {
    const signature = await paid.pay(buyer, PRICE, { to: merchant.address })
    priceApi.fail({ mode: 'error', status: 500, path: '/price/v3' })
    const failed = await app.inject({ url: '/api/fetch-price/JUP', headers: proofHeaders(signature, buyer.address) })
    priceApi.fail(null)
    t.equal(failed.statusCode, 502, 'the handler failed after the payment')
    return signature
  }

  t.test('the 402 advertises extensions.refund', async t => {
    const res = await app.inject('/api/fetch-price/SOL')
    const required = JSON.parse(Buffer.from(String(res.headers['payment-required']), 'base64').toString('utf8'))
    t.match(required.extensions.refund, { info: { refundEndpoint: /\/api\/refunds$/, windowSeconds: WINDOW_SECONDS, partialRefunds: false } })
  })

  t.test('a payment whose handler failed is refunded once, to the paying token account; it never buys after', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await failedDelivery(buyer)
    const [buyerBefore, merchantBefore] = [await balance(buyer.address), await balance(merchant.address)]
    const body = await refundBody(buyer, signature)
    const res = await ask(body)
    t.equal(res.statusCode, 200)
    const answer = res.json()
    t.match(answer, { status: 'executed', refundTxHash: String, refundReceipt: { format: 'jws', signature: String } })
    t.equal(await balance(buyer.address), buyerBefore + PRICE, 'the buyer has its tokens back, read on chain')
    t.equal(await balance(merchant.address), merchantBefore - PRICE)
    const [buyerAta] = await findAssociatedTokenPda({ owner: buyer.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    const refundTx = await paid.chain.rpc.getTransaction(answer.refundTxHash, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send()
    t.ok(refundTx?.transaction.message.accountKeys.includes(buyerAta), 'sent to the paying token account')
    const payload = JSON.parse(Buffer.from(answer.refundReceipt.signature.split('.')[1], 'base64url').toString('utf8'))
    t.match(payload, { kind: 'refund', payment: signature, refundTransaction: answer.refundTxHash, payer: buyer.address, amount: PRICE.toString() })

    const again = await ask(body)
    t.same(again.json(), answer, 'the same key: the same answer, the same receipt')
    const other = await ask(await refundBody(buyer, signature))
    t.match(other.json(), { status: 'denied', denialReason: 'already_refunded' }, 'another key: denied')
    t.equal(await balance(buyer.address), buyerBefore + PRICE, 'still one refund')
    const buy = await app.inject({ url: '/api/fetch-price/JUP', headers: proofHeaders(signature, buyer.address) })
    t.equal(buy.statusCode, 402)
    t.equal(buy.json().code, 'PAYMENT_ALREADY_USED', 'a refunded payment never buys')
  })

  t.test('a delivered payment is denied: delivered', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await paid.pay(buyer, PRICE, { to: merchant.address })
    const bought = await app.inject({ url: '/api/fetch-price/JUP', headers: proofHeaders(signature, buyer.address) })
    t.equal(bought.statusCode, 200)
    const before = await balance(buyer.address)
    t.match((await ask(await refundBody(buyer, signature))).json(), { status: 'denied', denialReason: 'delivered' })
    t.equal(await balance(buyer.address), before)
  })

  t.test('two refund requests at once, same or different keys: one transfer', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await failedDelivery(buyer)
    const before = await balance(buyer.address)
    const same = await refundBody(buyer, signature)
    const answers = (await Promise.all([ask(same), ask(same), ask(await refundBody(buyer, signature)), ask(await refundBody(buyer, signature))])).map(res => res.json())
    t.equal(answers.filter(answer => answer.status === 'executed').length, 1, 'one executes')
    t.ok(answers.every(answer => answer.status === 'executed' || answer.status === 'pending' || answer.denialReason === 'already_refunded'), 'the others wait or are denied')
    t.equal(await balance(buyer.address), before + PRICE, 'one transfer, read on chain')
  })

  t.test('a refund racing a redemption: one wins', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await paid.pay(buyer, PRICE, { to: merchant.address })
    const before = await balance(buyer.address)
    const [bought, refunded] = await Promise.all([
      app.inject({ url: '/api/fetch-price/JUP', headers: proofHeaders(signature, buyer.address) }),
      ask(await refundBody(buyer, signature))
    ])
    const delivered = bought.statusCode === 200
    const refund = refunded.json()
    t.equal(Number(delivered) + Number(refund.status === 'executed'), 1, `one of them (delivered: ${delivered}, refund: ${refund.status} ${refund.denialReason ?? ''})`)
    t.equal(await balance(buyer.address), delivered ? before : before + PRICE)
    if (delivered) t.equal(refund.denialReason, 'delivered')
  })

  t.test('wrong signer: not_payer', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const stranger = await paid.newBuyer(0n)
    const signature = await failedDelivery(buyer)
    t.match((await ask(await refundBody(buyer, signature, { signer: stranger }))).json(), { status: 'denied', denialReason: 'not_payer' }, 'the payer named, a stranger signed')
    t.match((await ask(await refundBody(stranger, signature))).json(), { status: 'denied', denialReason: 'not_payer' }, 'a stranger names itself')
    t.equal(await app.store.refunds.get(signature), undefined, 'nothing kept')
  })

  t.test('bad input, amounts and unknown payments', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await failedDelivery(buyer)
    const res = await ask({ ...(await refundBody(buyer, signature)), amount: '-1' })
    t.equal(res.statusCode, 400)
    t.equal(res.json().code, 'VALIDATION_ERROR')
    const network = await ask({ ...(await refundBody(buyer, signature)), paymentReference: { txHash: signature, network: 'solana' } })
    t.equal(network.json().code, 'REFUND_NETWORK_MISMATCH')
    t.match((await ask(await refundBody(buyer, signature, { amount: PRICE + 1n }))).json(), { status: 'denied', denialReason: 'amount_exceeds_settled' })
    const partial = await ask(await refundBody(buyer, signature, { amount: PRICE - 1n }))
    t.equal(partial.statusCode, 422)
    t.match(partial.json(), { code: 'REFUND_PARTIAL_UNSUPPORTED', settled: PRICE.toString() })
    const elsewhere = await paid.pay(buyer, PRICE)
    t.match((await ask(await refundBody(buyer, elsewhere))).json(), { status: 'denied', denialReason: 'unknown_payment' }, 'a payment to someone else')
  })

  t.test('window passed (the store clock turned): outside_window', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await failedDelivery(buyer)
    offsetMs = (WINDOW_SECONDS + 60) * 1000
    t.teardown(() => { offsetMs = 0 })
    t.match((await ask(await refundBody(buyer, signature))).json(), { status: 'denied', denialReason: 'outside_window' })
  })

  t.test('a crash between the sent mark and its record: a fresh app asks the chain and sends nothing again', async t => {
    const crashed = (await import('../../db/sqlite/sqlite-store.js')).createSqliteStore(env.DATABASE_PATH)
    t.teardown(() => crashed.close())
    const build402 = createRefundTransfer({ rpc: paid.chain.rpc, merchant, feePayer, mint: paid.mint })
    for (const sendIt of [true, false]) {
      const buyer = await paid.newBuyer(1_000_000n)
      const signature = await failedDelivery(buyer)
      const before = await balance(buyer.address)
      const [destination] = await findAssociatedTokenPda({ owner: buyer.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
      const idempotencyKey = randomUUID()
      // What the dead instance did: began, marked its transaction sent, (sent it,) and died before recording the verdict.
      const begun = await crashed.refunds.begin({ payment: signature, idempotencyKey, payer: buyer.address, destination, amount: PRICE, reason: 'crash', flow: 'proof', holder: 'dead', leaseMs: 60_000, paidAt: Date.now(), windowMs: WINDOW_SECONDS * 1000 })
      t.ok(begun.begun)
      const built = await build402(signature, destination, PRICE)
      t.equal(await crashed.refunds.markSent(signature, 'dead', built), true)
      if (sendIt) t.match(await sendTransaction(paid.chain.rpc, built.wire), { sent: true })
      t.match(await ask(await refundBody(buyer, signature, { idempotencyKey })), { statusCode: 202 }, 'held by the dead instance: pending')
      offsetMs = 61_000
      const fresh = await build(t, env, undefined, undefined, undefined, clock)
      const res = await ask(await refundBody(buyer, signature, { idempotencyKey }), fresh)
      offsetMs = 0
      t.match(res.json(), { status: 'executed', refundTxHash: built.signature }, `${sendIt ? 'sent' : 'never sent'}: the recorded transaction, landed`)
      t.equal(await balance(buyer.address), before + PRICE, 'one refund, read on chain')
    }
  })
})

t.test('refunds whose transaction can never land: the chain decides, one new transfer, never two', async t => {
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  const { feePayer, feePayerPath } = await createFeePayer(t, paid)
  const dir = mkdtempSync(join(tmpdir(), 'refunds-expired-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const merchantPath = join(dir, 'merchant.json')
  const bytes = generateKeypairBytes()
  writeKeypairFile(merchantPath, bytes)
  const merchant = await createKeyPairSignerFromBytes(bytes)
  await paid.chain.createAta(paid.mint, merchant.address)
  const env = {
    ...paid.env,
    PAYMENT_ADDRESS: merchant.address,
    MERCHANT_KEYPAIR_PATH: merchantPath,
    X402_FEE_PAYER_KEYPAIR_PATH: feePayerPath,
    X402_NETWORK: 'solana-devnet',
    PRICE_API_URL: priceApi.url,
    PRICE_CACHE_TTL_MS: '0',
    DATABASE_PATH: join(dir, 'merchant.db'),
    REFUNDS: 'true',
    REFUND_WINDOW_SECONDS: String(WINDOW_SECONDS),
    REFUND_REQUEST_MAX: '1000'
  }
  let offsetMs = 0
  const clock = () => Date.now() + offsetMs
  const [one, two] = [await build(t, env, undefined, undefined, undefined, clock), await build(t, env, undefined, undefined, undefined, clock)]
  const crashed = (await import('../../db/sqlite/sqlite-store.js')).createSqliteStore(env.DATABASE_PATH)
  t.teardown(() => crashed.close())
  const buildRefund = createRefundTransfer({ rpc: paid.chain.rpc, merchant, feePayer, mint: paid.mint })
  const rpc = paid.chain.rpc
  const balance = async (owner: Address) => await tokenBalanceOf(paid, owner)
  const statusOf = async (signature: string) => (await rpc.getSignatureStatuses([signature as never], { searchTransactionHistory: true }).send()).value[0]

  /** What a dead instance left: a refund marked sent with its signed transaction, the transaction never sent. */
  async function deadRefund () {
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await paid.pay(buyer, PRICE, { to: merchant.address })
    priceApi.fail({ mode: 'error', status: 500, path: '/price/v3' })
    t.equal((await one.inject({ url: '/api/fetch-price/JUP', headers: proofHeaders(signature, buyer.address) })).statusCode, 502, 'the handler failed after the payment')
    priceApi.fail(null)
    const [destination] = await findAssociatedTokenPda({ owner: buyer.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    const idempotencyKey = randomUUID()
    t.ok((await crashed.refunds.begin({ payment: signature, idempotencyKey, payer: buyer.address, destination, amount: PRICE, reason: 'expired', flow: 'proof', holder: 'dead', leaseMs: 60_000, paidAt: Date.now(), windowMs: WINDOW_SECONDS * 1000 })).begun)
    const built = await buildRefund(signature, destination, PRICE)
    t.equal(await crashed.refunds.markSent(signature, 'dead', built), true)
    return { buyer, signature, idempotencyKey, built, before: await balance(buyer.address) }
  }
  /** The chain moves past the transaction's last valid block height: it can never land. */
  async function expire (built: { wire: string, lastValidBlockHeight: bigint }) {
    paid.chain.advanceSlots(Number(built.lastValidBlockHeight - await rpc.getBlockHeight().send()) + 1)
    t.ok(await rpc.getBlockHeight({ commitment: 'finalized' }).send() > built.lastValidBlockHeight, 'the block height passed the blockhash\'s last valid one')
  }

  t.test('never sent, blockhash expired: two reconcilers at once, one rebuilds, one transfer', async t => {
    const dead = await deadRefund()
    await expire(dead.built)
    t.match(await sendTransaction(rpc, dead.built.wire), { sent: false, reason: 'blockhash-expired' }, 'the recorded transaction can never land now')
    offsetMs = 61_000
    t.teardown(() => { offsetMs = 0 })
    const taken = await Promise.all([one.refunds?.refunder.reconcile(), two.refunds?.refunder.reconcile()])
    t.equal((taken[0] ?? 0) + (taken[1] ?? 0), 1, 'one instance took it')
    const record = await one.store.refunds.get(dead.signature)
    t.match(record, { status: 'executed', holder: String }, 'executed')
    t.not(record?.refundSignature, dead.built.signature, 'by a new transaction')
    t.equal(await statusOf(dead.built.signature), null, 'the expired one never landed')
    t.match(await statusOf(record?.refundSignature as string), { err: null }, 'the new one did')
    t.equal(await balance(dead.buyer.address), dead.before + PRICE, 'one refund, read on chain')

    const signature = await signRefundRequest(dead.buyer, dead.signature, PRICE, dead.idempotencyKey)
    const asked = await two.inject({ method: 'POST', url: '/api/refunds', payload: { x402Version: 2, paymentReference: { txHash: dead.signature, network: 'solana-devnet' }, payer: dead.buyer.address, amount: PRICE.toString(), reason: 'expired', idempotencyKey: dead.idempotencyKey, payerSignature: signature } })
    t.match(asked.json(), { status: 'executed', refundTxHash: record?.refundSignature }, 'the buyer asking again: the new transaction')
    t.same(await Promise.all([one.refunds?.refunder.reconcile(), two.refunds?.refunder.reconcile()]), [0, 0], 'nothing left to reconcile')
    t.match(await sendTransaction(rpc, dead.built.wire), { sent: false }, 'the old bytes sent again: refused')
    t.equal(await balance(dead.buyer.address), dead.before + PRICE, 'still one refund')
  })

  t.test('sent and landed, then its blockhash expired: landed, nothing rebuilt', async t => {
    const dead = await deadRefund()
    t.match(await sendTransaction(rpc, dead.built.wire), { sent: true })
    await expire(dead.built)
    offsetMs = 61_000
    t.teardown(() => { offsetMs = 0 })
    t.equal(await one.refunds?.refunder.reconcile(), 1)
    t.match(await one.store.refunds.get(dead.signature), { status: 'executed', refundSignature: dead.built.signature }, 'the recorded transaction')
    t.equal(await balance(dead.buyer.address), dead.before + PRICE, 'one refund, read on chain')
  })

  // A store of their own (its database no app reconciles in the background), read on the test's clock.
  const own = clockedStore((await import('../../db/sqlite/sqlite-store.js')).createSqliteStore(join(dir, 'refunder.db')), clock)
  t.teardown(() => own.close())

  /** A payment to the merchant never presented (so never delivered) and a refunder of it, whose transactions `buildRefund` makes. */
  async function undelivered (buildRefund: BuildRefund) {
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await paid.pay(buyer, PRICE, { to: merchant.address })
    const refunder = createRefunder({
      rpc,
      refunds: own.refunds,
      payTo: merchant.address,
      mint: paid.mint,
      x402FeePayer: feePayer.address,
      commitment: 'confirmed',
      windowMs: WINDOW_SECONDS * 1000,
      leaseMs: 60_000,
      confirmTimeoutMs: 500,
      buildRefund
    })
    const request = async () => await refunder.request({ txHash: signature, payer: buyer.address, amount: PRICE, idempotencyKey: randomUUID(), reason: 'never delivered' })
    return { buyer, signature, refunder, request, before: await balance(buyer.address) }
  }

  t.test('a first send refused because its blockhash expired meanwhile: the chain, not the node, says never; one new transfer', async t => {
    const built: string[] = []
    // The chain moves on between building and sending (a slow instance): the send meets an expired blockhash.
    const { buyer, signature, refunder, request, before } = await undelivered(async (payment, destination, amount) => {
      const refund = await buildRefund(payment, destination, amount)
      built.push(refund.signature)
      if (built.length === 1) paid.chain.advanceSlots(Number(refund.lastValidBlockHeight - await rpc.getBlockHeight().send()) + 1)
      return refund
    })
    t.same(await request(), { status: 'pending', refundTxHash: built[0] }, 'pending: the node refused it')
    t.match(await own.refunds.get(signature), { status: 'failed', refundSignature: built[0] }, 'expired on chain and unseen: failed')
    t.equal(await refunder.reconcile(), 1, 'the reconciler takes it')
    t.equal(built.length, 2, 'one new transaction')
    t.match(await own.refunds.get(signature), { status: 'executed', refundSignature: built[1] })
    t.equal(await balance(buyer.address), before + PRICE, 'one refund, read on chain')
  })

  t.test('a first send refused in preflight while its blockhash is valid: still sent, rebuilt only once the chain says it can never land', async t => {
    // A fee payer without SOL: the node refuses the first transaction in preflight (it would not say so of a second).
    const unfunded = await generateKeyPairSigner()
    const built: Array<{ signature: string, lastValidBlockHeight: bigint }> = []
    const withoutFees = createRefundTransfer({ rpc, merchant, feePayer: unfunded, mint: paid.mint })
    const { buyer, signature, refunder, request, before } = await undelivered(async (payment, destination, amount) => {
      const refund = await (built.length === 0 ? withoutFees : buildRefund)(payment, destination, amount)
      built.push(refund)
      return refund
    })
    t.same(await request(), { status: 'pending', refundTxHash: built[0].signature }, 'pending: the node refused it')
    t.match(await own.refunds.get(signature), { status: 'sent', refundSignature: built[0].signature }, 'one node\'s refusal decides nothing')
    offsetMs = 61_000
    t.teardown(() => { offsetMs = 0 })
    t.equal(await refunder.reconcile(), 1, 'its lease over, the reconciler asks the chain')
    t.equal(built.length, 1, 'its blockhash still valid: the recorded bytes sent again, nothing built')
    t.match(await own.refunds.get(signature), { status: 'sent', refundSignature: built[0].signature })
    paid.chain.advanceSlots(Number(built[0].lastValidBlockHeight - await rpc.getBlockHeight().send()) + 1)
    offsetMs = 130_000
    t.equal(await refunder.reconcile(), 1)
    t.equal(built.length, 2, 'expired and unseen: one new transaction')
    t.match(await own.refunds.get(signature), { status: 'executed', refundSignature: built[1].signature })
    t.equal(await balance(buyer.address), before + PRICE, 'one refund, read on chain')
  })
})
