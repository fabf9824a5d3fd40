import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { wrapFetchWithPayment, x402Client as X402Client } from '@x402/fetch'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import type { KeyPairSigner } from '@solana/kit'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { proofHeaders } from '../fixtures/paid-chain.js'
import { sqliteOf } from '../helper.js'
import { buildExactPayment, paymentRequiredOf, v1Header, v2Header } from '../fixtures/x402-payment.js'

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
const PRICE = 50_000n

t.test('an x402 payment buys exactly one delivery', async (t) => {
  let failNext: false | 'throw' | 'slow' = false
  const m = await startX402Merchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '1000' }, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => {
      if (failNext === 'throw') {
        failNext = false
        throw new Error('upstream fell over')
      }
      await sleep(20) // long enough for concurrent requests to overlap
      return { delivered: true }
    })
  })
  const { paid, app } = m
  const claimStatus = (signature: string) => app.store.claims.status(signature).then(state => state?.status)
  const deliveries = (signature: string) => sqliteOf(app).prepare("SELECT count(*) FROM audit_log WHERE signature = ? AND outcome = 'DELIVERED'").pluck().get(signature)
  const challenge = await fetch(`${m.url}/test/paid`)
  const required = paymentRequiredOf(challenge.headers)

  /** The official v2 client, recording the payment header it sends. */
  function officialClient (buyer: KeyPairSigner) {
    const sent: string[] = []
    const recording: typeof fetch = async (input, init) => {
      const header = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('payment-signature')
      if (header !== null) sent.push(header)
      return await fetch(input, init)
    }
    const client = new X402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: paid.chain.url }))
    client.setSpendControls(false)
    return { pay: wrapFetchWithPayment(recording, client), sent }
  }

  t.test('a replayed payload, and the settled signature through the proof headers: refused, nothing moves', async (t) => {
    const buyer = await paid.newBuyer(10_000_000n)
    const { pay, sent } = officialClient(buyer)
    const first = await pay(`${m.url}/test/paid`)
    t.equal(first.status, 200)
    const receipt = JSON.parse(Buffer.from(first.headers.get('payment-response') ?? '', 'base64').toString('utf8')) as { transaction: string }
    t.equal(await claimStatus(receipt.transaction), 'redeemed', 'the transaction signature is the spent proof')
    const balance = await m.merchantBalance()

    const replay = await fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': sent[0] } })
    t.equal(replay.status, 402)
    t.equal((await replay.json() as { code: string }).code, 'PAYMENT_ALREADY_USED')

    const crossFlow = await fetch(`${m.url}/test/paid`, { headers: proofHeaders(receipt.transaction, buyer.address) })
    t.equal((await crossFlow.json() as { code: string }).code, 'PAYMENT_ALREADY_USED', 'one payment never buys a second delivery through the other flow')
    t.equal(await m.merchantBalance(), balance, 'nothing moved')
    t.equal(deliveries(receipt.transaction), 1)
    const flows = sqliteOf(app).prepare('SELECT flow FROM audit_log WHERE signature = ?').pluck().all(receipt.transaction)
    t.same(flows, ['x402-v2'], 'the audit row records the flow')
  })

  t.test('20 concurrent requests with one payload: one settlement, one delivery', async (t) => {
    const buyer = await paid.newBuyer(10_000_000n)
    const tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
    const header = v2Header(tx, required.accepts[0], required.resource)
    const before = await m.merchantBalance()
    const responses = await Promise.all(Array.from({ length: 20 }, async () => {
      const res = await fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': header } })
      return { status: res.status, code: (await res.json() as { code?: string }).code }
    }))
    t.equal(responses.filter(r => r.status === 200).length, 1, 'one delivery')
    const refusals = new Set(responses.filter(r => r.status !== 200).map(r => `${r.status} ${r.code}`))
    t.ok([...refusals].every(r => r === '402 PAYMENT_ALREADY_USED' || r === '409 PAYMENT_IN_PROGRESS'), `the rest are told why: ${[...refusals].join(', ')}`)
    t.equal(await m.merchantBalance() - before, PRICE, 'one settlement')
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n - PRICE)
  })

  t.test('a failing handler: nothing settled, the payload stays good, a new payment works', async (t) => {
    const buyer = await paid.newBuyer(10_000_000n)
    const before = await m.merchantBalance()
    const { pay, sent } = officialClient(buyer)
    failNext = 'throw'
    const failed = await pay(`${m.url}/test/paid`)
    t.equal(failed.status, 500)
    t.notOk(failed.headers.get('payment-response'), 'no receipt')
    t.equal(await m.merchantBalance(), before, 'nothing moved')
    t.equal(await m.tokenBalance(buyer.address), 10_000_000n)

    const again = await pay(`${m.url}/test/paid`)
    t.equal(again.status, 200, 'a new payment works')
    t.equal(await m.merchantBalance() - before, PRICE)
    t.equal(sent.length, 2)
  })

  t.test('HEAD never verifies, claims or settles', async (t) => {
    const buyer = await paid.newBuyer(10_000_000n)
    const tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
    const before = await m.merchantBalance()
    const res = await fetch(`${m.url}/test/paid`, { method: 'HEAD', headers: { 'payment-signature': v2Header(tx, required.accepts[0], required.resource) } })
    t.equal(res.status, 402)
    t.equal(await m.merchantBalance(), before)
    const paidGet = await fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': v2Header(tx, required.accepts[0], required.resource) } })
    t.equal(paidGet.status, 200, 'the payload is still good for a GET')
  })

  t.test('more than one payment form in a request: 400', async (t) => {
    const buyer = await paid.newBuyer(10_000_000n)
    const tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
    const v2 = v2Header(tx, required.accepts[0], required.resource)
    const before = await m.merchantBalance()
    const forms: Array<Record<string, string>> = [
      { 'payment-signature': v2, 'x-payment': v1Header(tx) },
      { 'payment-signature': v2, ...proofHeaders('5'.repeat(88), buyer.address) }
    ]
    for (const headers of forms) {
      const res = await fetch(`${m.url}/test/paid`, { headers })
      t.equal(res.status, 400)
      const body = await res.json() as { code: string, message: string }
      t.equal(body.code, 'PAYMENT_FORMS_CONFLICT', body.message)
    }
    t.equal(await m.merchantBalance(), before)
  })

  t.test('confirmation unknown in time: 503 pending, the claim kept; the retry delivers once, without a second transfer', async (t) => {
    const buyer = await paid.newBuyer(10_000_000n)
    const tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
    const header = v2Header(tx, required.accepts[0], required.resource)
    const before = await m.merchantBalance()
    paid.chain.failMethod('getSignatureStatuses', { httpStatus: 503 })
    const pending = await fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': header } })
    paid.chain.failMethod('getSignatureStatuses', null)
    t.equal(pending.status, 503)
    const body = await pending.json() as { code: string }
    t.equal(body.code, 'X402_SETTLEMENT_PENDING')
    const retryAfter = Number(pending.headers.get('retry-after'))
    t.ok(retryAfter >= 1, 'Retry-After')
    t.equal(await m.merchantBalance() - before, PRICE, 'the transfer landed meanwhile')

    // The pending answer ended the claim's lease: the retry takes it over at once, asks the chain
    // (landed meanwhile) and delivers, without sending anything again.
    const retry = await fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': header } })
    t.equal(retry.status, 200, 'delivered once it is known to have landed')
    t.same(await retry.json(), { delivered: true })
    t.ok(retry.headers.get('payment-response'))
    t.equal(await m.merchantBalance() - before, PRICE, 'no second transfer')
    const again = await fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': header } })
    t.equal((await again.json() as { code: string }).code, 'PAYMENT_ALREADY_USED', 'and only once')
  })
})
