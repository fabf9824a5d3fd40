import { generateKeyPairSigner } from '@solana/kit'
import t, { type Test } from 'tap'
import { build, sqliteOf } from '../../helper.js'
import { proofHeaders, startPaidChain } from '../../fixtures/paid-chain.js'

const HOUR = 3600

// One chain whose clock starts an hour in the past: the first payment is old, then time catches up.
t.test('each verification failure answers 402 with its code and the requirements', async (t) => {
  const paid = await startPaidChain(t, { startTime: Math.floor(Date.now() / 1000) - HOUR })
  const buyer = await paid.newBuyer(10_000_000n)
  const oldPayment = await paid.pay(buyer, 50_000n)
  paid.chain.advanceClock(HOUR)

  const app = await build(t, paid.env, (app) => {
    app.get('/test/cheap', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: 'cheap' }))
    app.get('/test/dear', { config: { paidService: 'analyze-token' } }, async () => ({ delivered: 'dear' }))
  })
  const audit = () => sqliteOf(app).prepare('SELECT outcome, status, verified, payer, signature, amount FROM audit_log ORDER BY id').all() as
    Array<{ outcome: string, status: number, verified: number, payer: string | null, signature: string | null, amount: string | null }>
  const lastAudit = () => audit().at(-1)
  // Refused proofs are only counted (by outcome), never logged row by row.
  const unpaid = async (outcome: string) => {
    await app.store.audit.flushUnpaid()
    return sqliteOf(app).prepare('SELECT sum(count) FROM unpaid_counts WHERE outcome = ?').pluck().get(outcome) as number | null
  }

  async function expectRejection (t: Test, headers: Record<string, string>, code: string, url = '/test/cheap') {
    const res = await app.inject({ url, headers })
    t.equal(res.statusCode, 402, `${code}: status`)
    const body = res.json()
    t.equal(body.code, code)
    t.equal(body.x402Version, 1)
    t.equal(body.accepts[0].payTo, paid.merchant.address)
    t.equal(res.headers['cache-control'], 'no-store')
    t.notOk(res.headers['x-payment-response'])
    return body
  }

  t.test('no proof: the challenge, counted but not audited', async (t) => {
    const res = await app.inject('/test/dear')
    t.equal(res.statusCode, 402)
    const body = res.json()
    t.equal(body.code, 'PAYMENT_REQUIRED')
    t.match(body.accepts[0], {
      scheme: 'exact',
      network: 'solana-localnet',
      maxAmountRequired: '100000',
      resource: 'http://localhost:80/test/dear',
      mimeType: 'application/json',
      payTo: paid.merchant.address,
      asset: paid.mint,
      maxTimeoutSeconds: 900,
      extra: { amount: '0.1', symbol: 'USDC', decimals: 6, proofHeaders: { signature: 'x-payment-signature', wallet: 'x-payment-wallet' } }
    })
    t.match(body.accepts[0].extra.solanaPayUrl, new RegExp(`^solana:${paid.merchant.address}\\?amount=0\\.1&spl-token=${paid.mint}&label=`))
    t.equal(audit().length, 0)
    await app.inject('/test/dear')
    await app.store.audit.flushUnpaid()
    t.equal(sqliteOf(app).prepare("SELECT count FROM unpaid_counts WHERE service = 'analyze-token' AND outcome = 'PAYMENT_REQUIRED'").pluck().get(), 2, 'counted in memory, written on flush')
  })

  t.test('malformed headers name the header at fault', async (t) => {
    const wallet = buyer.address
    let body = await expectRejection(t, { 'x-payment-signature': 'abc', 'x-payment-wallet': wallet }, 'INVALID_PAYMENT_HEADER')
    t.same(body.invalidHeaders, ['x-payment-signature'])
    body = await expectRejection(t, { 'x-payment-signature': oldPayment, 'x-payment-wallet': '0OIl' }, 'INVALID_PAYMENT_HEADER')
    t.same(body.invalidHeaders, ['x-payment-wallet'])
    body = await expectRejection(t, { 'x-payment-wallet': wallet }, 'INVALID_PAYMENT_HEADER')
    t.match(body.message, /x-payment-signature is missing/)
    t.ok((await unpaid('INVALID_PAYMENT_HEADER') ?? 0) > 0, 'counted, not logged')
    t.equal(audit().length, 0)
  })

  t.test('unknown signature: PAYMENT_NOT_FOUND', async (t) => {
    const other = await generateKeyPairSigner()
    const unknown = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'
    const body = await expectRejection(t, proofHeaders(unknown, other.address), 'PAYMENT_NOT_FOUND')
    t.match(body.message, /retry/)
  })

  t.test('a failed transaction: PAYMENT_FAILED', async (t) => {
    const poor = await paid.newBuyer(10n)
    const failed = await paid.pay(poor, 50_000n, { skipPreflight: true })
    const body = await expectRejection(t, proofHeaders(failed, poor.address), 'PAYMENT_FAILED')
    t.ok(body.transactionError, 'the chain error is shown')
    t.equal(await unpaid('PAYMENT_FAILED'), 1, 'counted, not logged')
    t.notOk(audit().some(row => row.signature === failed))
  })

  t.test('a wallet that did not sign: PAYER_MISMATCH', async (t) => {
    const signature = await paid.pay(buyer, 50_000n)
    await expectRejection(t, proofHeaders(signature, paid.merchant.address), 'PAYER_MISMATCH')
    // The proof was not spent by the failed attempt.
    const res = await app.inject({ url: '/test/cheap', headers: proofHeaders(signature, buyer.address) })
    t.equal(res.statusCode, 200)
  })

  t.test('too little, wrong mint, wrong recipient: AMOUNT_TOO_LOW with the amounts', async (t) => {
    const short = await paid.pay(buyer, 40_000n)
    const body = await expectRejection(t, proofHeaders(short, buyer.address), 'AMOUNT_TOO_LOW')
    t.equal(body.paid, '40000')
    t.equal(body.required, '50000')
    t.equal(await unpaid('AMOUNT_TOO_LOW'), 1, 'counted, not logged')

    const otherMint = await paid.chain.createMint({ decimals: 6 })
    await paid.chain.mintTo(otherMint, buyer.address, 1_000_000n)
    await paid.chain.createAta(otherMint, paid.merchant.address)
    const wrongMint = await paid.pay(buyer, 50_000n, { mint: otherMint })
    t.equal((await expectRejection(t, proofHeaders(wrongMint, buyer.address), 'AMOUNT_TOO_LOW')).paid, '0')

    const stranger = await generateKeyPairSigner()
    await paid.chain.createAta(paid.mint, stranger.address)
    const wrongRecipient = await paid.pay(buyer, 50_000n, { to: stranger.address })
    t.equal((await expectRejection(t, proofHeaders(wrongRecipient, buyer.address), 'AMOUNT_TOO_LOW')).paid, '0')

    const cheapProof = await paid.pay(buyer, 50_000n)
    const dear = await expectRejection(t, proofHeaders(cheapProof, buyer.address), 'AMOUNT_TOO_LOW', '/test/dear')
    t.equal(dear.required, '100000', 'a 0.05 proof never buys a 0.1 route')
  })

  t.test('older than PAYMENT_MAX_AGE_SECONDS: PAYMENT_EXPIRED', async (t) => {
    const body = await expectRejection(t, proofHeaders(oldPayment, buyer.address), 'PAYMENT_EXPIRED')
    t.ok(body.ageSeconds >= HOUR - 5)
    t.equal(body.maxAgeSeconds, 900)
  })

  t.test('a valid proof buys one delivery, on any route, once', async (t) => {
    const signature = await paid.pay(buyer, 100_000n)
    const res = await app.inject({ url: '/test/cheap', headers: proofHeaders(signature, buyer.address) })
    t.equal(res.statusCode, 200, 'a 0.1 proof buys a 0.05 route')
    t.same(res.json(), { delivered: 'cheap' })
    const receipt = JSON.parse(Buffer.from(String(res.headers['x-payment-response']), 'base64').toString('utf8'))
    t.match(receipt, { success: true, transaction: signature, network: 'solana-localnet', payer: buyer.address, extensions: { 'offer-receipt': { info: { receipt: { format: 'jws', signature: String } } } } })
    t.same(Object.keys(receipt), ['success', 'transaction', 'network', 'payer', 'extensions'], 'the receipt and the signed receipt, nothing else')
    t.match(lastAudit(), { outcome: 'DELIVERED', status: 200, verified: 1, payer: buyer.address, signature, amount: '100000' })
    const latencyMs = sqliteOf(app).prepare('SELECT latency_ms FROM audit_log WHERE signature = ?').pluck().get(signature) as number
    t.ok(latencyMs > 0 && latencyMs < 60_000, `timed from the payment gate to the answer (${latencyMs} ms)`)

    await expectRejection(t, proofHeaders(signature, buyer.address), 'PAYMENT_ALREADY_USED')
    await expectRejection(t, proofHeaders(signature, buyer.address), 'PAYMENT_ALREADY_USED', '/test/dear')
    t.equal(await unpaid('PAYMENT_ALREADY_USED'), 2, 'both counted, not logged')
    t.equal(lastAudit()?.outcome, 'DELIVERED', 'the log holds only the delivery')
  })

  t.test('overpayment is accepted and recorded as paid', async (t) => {
    const signature = await paid.pay(buyer, 250_000n)
    const res = await app.inject({ url: '/test/dear', headers: proofHeaders(signature, buyer.address) })
    t.equal(res.statusCode, 200)
    t.match(lastAudit(), { outcome: 'DELIVERED', amount: '250000' })
  })
})
