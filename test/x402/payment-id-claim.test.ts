import type { Address } from '@solana/kit'
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier'
import t from 'tap'
import { PRICE, startMerchant, until } from '../fixtures/cluster-merchant.js'
import { base64Json, buildExactPayment, transactionIdOf } from '../fixtures/x402-payment.js'

// The claim looks the payment-identifier up itself (one store operation); a payload refused at
// verification is never claimed, and its id is looked up on its own, so a retry under the id of a
// payment still being settled is told to wait (409), never to pay again (402), whether its own
// payload could be paid or not. Balances are read on the chain.
t.test('a retry under the payment-identifier of a payment being settled: 409 whether its payload verifies or not; the buyer pays once', async t => {
  const m = await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '1000', RPC_TIMEOUT_MS: '4000', PAYMENT_LEASE_SECONDS: '15' })
  const offer = JSON.parse(Buffer.from((await fetch(`${m.url}/test/paid`)).headers.get('payment-required') as string, 'base64').toString('utf8')) as { resource: unknown, accepts: unknown[] }
  const id = generatePaymentId()
  const extensions = appendPaymentIdentifierToExtensions({ 'payment-identifier': { info: { required: false } } }, id)
  const headerOf = (tx: string) => base64Json({ x402Version: 2, resource: offer.resource, accepted: offer.accepts[0], payload: { transaction: tx }, extensions })
  const get = async (tx: string) => await fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': headerOf(tx) } })

  // The buyer holds three times the price: a second payload verifies after the first one landed.
  const held = 3n * PRICE
  const buyer = await m.paid.newBuyer(held)
  const first = await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: PRICE })
  const firstSignature = await transactionIdOf(first, m.feePayer)
  const before = await m.balances(buyer.address)
  const release = m.cluster.holdReplies('sendTransaction')
  const paying = get(first)
  await until(async () => (await m.app.store.claims.status(firstSignature))?.status === 'sent', 10_000)

  // Other transactions of the same transfer: another unit price.
  const payable = await get(await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: PRICE, cuPrice: 2n }))
  const payableBody = await payable.json() as { code?: string }
  t.equal(payable.status, 409, 'a verifying payload under the id: the claim names the payment in service')
  t.equal(payableBody.code, 'PAYMENT_IN_PROGRESS')

  // Another transfer empties the buyer's account: a payload of it now fails its simulation.
  await until(async () => await m.tokenBalance(buyer.address) === held - PRICE, 10_000)
  await m.paid.pay(buyer, held - PRICE, { to: m.paid.merchant.address as Address })
  await until(async () => await m.tokenBalance(buyer.address) === 0n, 10_000)
  const unpayable = await get(await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: PRICE, cuPrice: 3n }))
  const unpayableBody = await unpayable.json() as { code?: string }
  t.equal(unpayable.status, 409, 'a payload refused at verification under the id: still told to wait, not to pay again')
  t.equal(unpayableBody.code, 'PAYMENT_IN_PROGRESS')

  release()
  const answered = await paying
  t.equal(answered.status, 200, 'the payment in service delivers')
  await answered.arrayBuffer()
  const after = await m.balances(buyer.address)
  t.equal(before.buyer - after.buyer, held, 'the buyer paid the first payment and its own transfer (all it held before the retries were judged: nothing under the id twice)')
  t.equal(after.merchant - before.merchant, held)
})
