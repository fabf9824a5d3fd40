import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import t from 'tap'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { buildExactPayment, paymentRequiredOf, v2Header } from '../fixtures/x402-payment.js'

const PATH = '/api/fetch-price/SOL'
const PRICE = 50_000n

t.test('a payment refused because its source is busy gives its claim back: the retry pays at once', async (t) => {
  const m = await startX402Merchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '300' })
  const buyer = await m.paid.newBuyer(1_000_000n)
  const [source] = await findAssociatedTokenPda({ owner: buyer.address, mint: m.paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  // Another instance's settlement from the same token account holds the source.
  const other = { signature: 'other-payment', claimId: 'other-instance', flow: 'x402' as const, service: 'fetch-price' as const, payer: buyer.address, amount: PRICE, resource: PATH, leaseMs: 60_000 }
  t.same(await m.app.store.claims.claim(other), { claimed: true, sent: false })
  t.equal(await m.app.store.claims.markSent({ signature: other.signature, claimId: other.claimId, leaseMs: 60_000, source, holdMs: 60_000 }), 'sent', 'it holds the source')
  const required = paymentRequiredOf((await fetch(`${m.url}${PATH}`)).headers)
  const tx = await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
  const header = { 'payment-signature': v2Header(tx, required.accepts[0], required.resource) }
  const before = await m.tokenBalance(buyer.address)

  const busy = await fetch(`${m.url}${PATH}`, { headers: header })
  t.equal(busy.status, 409)
  t.equal((await busy.json() as { code: string }).code, 'PAYMENT_IN_PROGRESS')
  t.equal(await m.tokenBalance(buyer.address), before, 'nothing moved')

  t.equal(await m.app.store.claims.releaseSource(source, 'other-instance'), true, 'the other settlement ends')
  const paid = await fetch(`${m.url}${PATH}`, { headers: header })
  t.equal(paid.status, 200, 'the same payload pays now, not after a lease of 409s')
  t.equal(await m.tokenBalance(buyer.address), before - PRICE, 'the price moved, once')
})
