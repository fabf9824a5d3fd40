import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { createKeyPairSignerFromBytes, type Address, type KeyPairSigner } from '@solana/kit'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { signRefundRequest } from '../../lib/refunds/refund-message.js'
import { createRefundTransfer } from '../../lib/refunds/refund-transfer.js'
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
