import t, { type Test } from 'tap'
import { getTransferSolInstruction } from '@solana-program/system'
import { createNoopSigner } from '@solana/kit'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { buildExactPayment, paymentRequiredOf, v1Header, v2Header, type ExactPaymentOptions } from '../fixtures/x402-payment.js'

const MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const PATH = '/api/fetch-price/SOL'
const PRICE = 50_000n

t.test('each verification rule refuses a transaction built to break it: 402, nothing moved', async (t) => {
  const m = await startX402Merchant(t)
  const { paid } = m
  const buyer = await paid.newBuyer(10_000_000n)
  const otherMint = await paid.chain.createMint({ decimals: 6 })
  await paid.chain.mintTo(otherMint, buyer.address, 1_000_000n)
  // The fee payer holds payment tokens too, so a transfer it signed would otherwise succeed.
  await paid.chain.mintTo(paid.mint, m.feePayer.address, 1_000_000n)
  const stranger = await paid.chain.createWallet()

  const challenge = await fetch(`${m.url}${PATH}`)
  const required = paymentRequiredOf(challenge.headers)
  const accepted = required.accepts[0]
  t.equal(accepted.extra && (accepted.extra as { feePayer: string }).feePayer, m.feePayer.address, 'the 402 names the fee payer')

  async function balances () {
    return Promise.all([m.merchantBalance(), m.tokenBalance(buyer.address), m.tokenBalance(m.feePayer.address), m.solBalance(m.feePayer.address)])
  }

  async function refused (t: Test, name: string, code: string, options: Partial<ExactPaymentOptions> & { header?: (tx: string) => Record<string, string> }) {
    const before = await balances()
    const tx = await buildExactPayment(paid, { buyer, feePayer: m.feePayer.address, amount: PRICE, ...options })
    const headers = options.header?.(tx) ?? { 'payment-signature': v2Header(tx, accepted, required.resource) }
    const res = await fetch(`${m.url}${PATH}`, { headers })
    const body = await res.json() as { code: string, accepts?: unknown[], message: string }
    t.equal(res.status, 402, `${name}: 402`)
    t.equal(body.code, code, `${name}: ${code} (${body.message})`)
    t.ok(body.accepts, `${name}: the requirements come back`)
    t.ok(res.headers.get('payment-required'), `${name}: and the v2 header`)
    t.same(await balances(), before, `${name}: no balance moved`)
  }

  t.test('amount one unit more', t => refused(t, 'amount +1', 'X402_AMOUNT_MISMATCH', { amount: PRICE + 1n }))
  t.test('amount one unit less', t => refused(t, 'amount -1', 'X402_AMOUNT_MISMATCH', { amount: PRICE - 1n }))
  t.test('another destination', t => refused(t, 'other destination', 'X402_RECIPIENT_MISMATCH', { to: stranger.address }))
  t.test('another mint', t => refused(t, 'other mint', 'X402_MINT_MISMATCH', { mint: otherMint }))
  t.test('the fee payer as transfer authority', t => refused(t, 'fee payer authority', 'X402_FEE_PAYER_EXPOSED', { authority: m.feePayer.address }))
  t.test('an extra SOL transfer from the fee payer', t => refused(t, 'SOL from fee payer', 'X402_FEE_PAYER_EXPOSED', {
    extra: [getTransferSolInstruction({ source: createNoopSigner(m.feePayer.address), destination: buyer.address, amount: 1_000_000n })]
  }))
  t.test('a compute unit price above 5,000,000 micro-lamports', t => refused(t, 'CU price', 'X402_COMPUTE_PRICE_TOO_HIGH', { cuPrice: 5_000_001n }))
  t.test('a compute unit limit above the cap', t => refused(t, 'CU limit', 'X402_COMPUTE_BUDGET_INVALID', { cuLimit: 1_400_000 }))
  t.test('another network (v2)', t => refused(t, 'network v2', 'X402_NETWORK_MISMATCH', {
    header: tx => ({ 'payment-signature': v2Header(tx, { ...accepted, network: MAINNET }, required.resource) })
  }))
  t.test('another network (v1)', t => refused(t, 'network v1', 'X402_NETWORK_MISMATCH', { header: tx => ({ 'x-payment': v1Header(tx, 'solana') }) }))
  t.test('a stale blockhash', async t => {
    const old = (await paid.chain.rpc.getLatestBlockhash().send()).value
    paid.chain.advanceSlots(200)
    await refused(t, 'stale blockhash', 'X402_BLOCKHASH_EXPIRED', { blockhash: old })
  })
  t.test('a payer without the tokens: the simulation fails', async t => {
    const poor = await paid.newBuyer(10n)
    const before = await m.tokenBalance(poor.address)
    const tx = await buildExactPayment(paid, { buyer: poor, feePayer: m.feePayer.address, amount: PRICE })
    const res = await fetch(`${m.url}${PATH}`, { headers: { 'payment-signature': v2Header(tx, accepted, required.resource) } })
    t.equal(res.status, 402)
    t.equal((await res.json() as { code: string }).code, 'X402_SIMULATION_FAILED')
    t.equal(await m.tokenBalance(poor.address), before)
  })
  t.test('a requirement other than the offered one (v2 accepted with another amount)', t => refused(t, 'accepted', 'X402_REQUIREMENTS_MISMATCH', {
    header: tx => ({ 'payment-signature': v2Header(tx, { ...accepted, amount: '1' }, required.resource) })
  }))
  t.test('a header that is not base64 JSON', async t => {
    for (const header of ['%%%', Buffer.from('not json').toString('base64'), Buffer.from('{"x402Version":2}').toString('base64')]) {
      const res = await fetch(`${m.url}${PATH}`, { headers: { 'payment-signature': header } })
      t.equal(res.status, 402)
      t.equal((await res.json() as { code: string }).code, 'X402_INVALID_PAYLOAD')
    }
    const v3 = await fetch(`${m.url}${PATH}`, { headers: { 'x-payment': Buffer.from('{"x402Version":3}').toString('base64') } })
    t.equal((await v3.json() as { code: string }).code, 'X402_UNSUPPORTED')
  })
  t.test('the fee payer did not move either', async t => {
    const sol = await m.solBalance(m.feePayer.address)
    t.ok(sol > 0n)
    t.equal(await m.merchantBalance(), 0n, 'the merchant received nothing in this whole file')
  })
})
