import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Address } from '@solana/kit'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { buildExactPayment, paymentRequiredOf, v2Header } from '../fixtures/x402-payment.js'

const PRICE = 50_000n
const SIGNATURE_FEE = 5000n

// What one payment may cost the fee payer, and what a wallet whose payments keep failing may cost
// it, each read on chain: the fee payer's lamports, the merchant's and the buyer's tokens.
t.test('the fee payer pays at most the cap per payment, and a wallet that makes settlements fail is held back', async t => {
  let hold: Promise<void> | undefined
  const m = await startX402Merchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '1000', PROOF_FAILURE_LIMIT: '0', METRICS_ENABLED: 'true', METRICS_TOKEN: 'a-metrics-token-of-32-characters-at-least-0123456789' }, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => {
      await hold
      return { delivered: true }
    })
  })
  const required = paymentRequiredOf((await fetch(`${m.url}/test/paid`)).headers)
  const pay = async (header: string) => {
    const res = await fetch(`${m.url}/test/paid`, { headers: { 'payment-signature': header } })
    return { status: res.status, body: await res.json() as { code?: string, message?: string }, retryAfter: res.headers.get('retry-after') }
  }
  const headerFor = async (buyer: Parameters<typeof buildExactPayment>[1]['buyer'], extra: { cuLimit?: number, cuPrice?: bigint } = {}) =>
    v2Header(await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: PRICE, ...extra }), required.accepts[0], required.resource)

  t.test('a priority fee above X402_MAX_PRIORITY_FEE_LAMPORTS is refused with nothing sent; the highest accepted costs at most 11,000 lamports', async t => {
    const buyer = await m.paid.newBuyer(10_000_000n)
    const feePayerBefore = await m.solBalance(m.feePayer.address)
    const greedy = await pay(await headerFor(buyer, { cuLimit: 200_000, cuPrice: 5_000_000n }))
    t.equal(greedy.status, 402)
    t.equal(greedy.body.code, 'X402_COMPUTE_PRICE_TOO_HIGH')
    t.match(greedy.body.message, /1000000 lamports .* cap of 1000 lamports/, 'the cap is named')
    t.equal(await m.solBalance(m.feePayer.address), feePayerBefore, 'nothing sent')

    // 200,000 CU at 5,005 micro-lamports: 1,001 lamports, one above the default cap (the old default, 10,000, took it).
    const above = await pay(await headerFor(buyer, { cuLimit: 200_000, cuPrice: 5_005n }))
    t.equal(above.status, 402)
    t.equal(above.body.code, 'X402_COMPUTE_PRICE_TOO_HIGH')
    t.equal(await m.solBalance(m.feePayer.address), feePayerBefore, 'nothing sent')
    // 200,000 CU at 5,000 micro-lamports: exactly the default cap of 1,000 lamports.
    const dearest = await pay(await headerFor(buyer, { cuLimit: 200_000, cuPrice: 5_000n }))
    t.equal(dearest.status, 200)
    const spent = feePayerBefore - await m.solBalance(m.feePayer.address)
    t.equal(spent, 2n * SIGNATURE_FEE + 1_000n, 'two signatures and the capped priority fee')
    t.ok(spent <= 11_000n, `at most 11,000 lamports (${spent})`)
  })

  t.test('a wallet whose settlements fail is refused (429 PAYER_BLOCKED) after two, before any RPC call', async t => {
    const attacker = await m.paid.newBuyer(PRICE)
    const elsewhere = await m.paid.chain.createWallet()
    await m.paid.chain.createAta(m.paid.mint, elsewhere.address)
    const feePayerBefore = await m.solBalance(m.feePayer.address)
    const merchantBefore = await m.merchantBalance()
    // Each round: the payload verifies (the balance is there), the handler is held, the attacker
    // moves its tokens away, and the settlement is refused; then the tokens come back.
    for (let round = 0; round < 2; round++) {
      let release!: () => void
      hold = new Promise(resolve => { release = resolve })
      const pending = pay(await headerFor(attacker))
      await sleep(300)
      await m.paid.pay(attacker, PRICE, { to: elsewhere.address })
      release()
      const answer = await pending
      t.equal(answer.status, 402, `round ${round}: refused`)
      t.equal(answer.body.code, 'X402_SETTLEMENT_FAILED')
      await m.paid.pay(elsewhere, PRICE, { to: attacker.address as Address })
    }
    hold = undefined
    m.paid.chain.resetStats()
    const blocked = await pay(await headerFor(attacker))
    t.equal(blocked.status, 429)
    t.equal(blocked.body.code, 'PAYER_BLOCKED')
    t.ok(Number(blocked.retryAfter) > 0, 'Retry-After')
    t.equal(m.paid.chain.stats().simulateTransaction ?? 0, 0, 'refused before any RPC call')
    t.equal(await m.merchantBalance(), merchantBefore, 'nothing paid')
    t.equal(await m.solBalance(m.feePayer.address), feePayerBefore, 'refused at send: the fee payer paid nothing')
    const honest = await m.paid.newBuyer(10_000_000n)
    t.equal((await pay(await headerFor(honest))).status, 200, 'another wallet pays as usual')
    t.ok((m.paid.chain.stats().simulateTransaction ?? 0) >= 1, 'and its payment was simulated (the count above is a real one)')
  })

  t.test('/metrics shows what the fee payer spent, by how each settlement ended', async t => {
    const text = await (await fetch(`${m.url}/metrics`, { headers: { authorization: 'Bearer a-metrics-token-of-32-characters-at-least-0123456789' } })).text()
    const value = (name: string, outcome: string) => Number(new RegExp(`^${name}\\{outcome="${outcome}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1])
    t.equal(value('x402_fee_payer_settlements_total', 'delivered'), 2, 'the capped payment and the honest one')
    t.equal(value('x402_fee_payer_lamports_total', 'delivered'), Number(2n * SIGNATURE_FEE + 1_000n + 2n * SIGNATURE_FEE + 1n), 'their fees, as charged on chain')
    t.equal(value('x402_fee_payer_settlements_total', 'refused_at_send'), 2, 'the attacker\'s two rounds')
    t.equal(value('x402_fee_payer_lamports_total', 'refused_at_send'), 0, 'refused at send: nothing spent')
  })
})

t.test('PROOF_FAILURE_LIMIT counts a burst as it arrives: an MCP batch of 8 paid calls with the limit at 3 runs at most 3 verifications', async t => {
  const m = await startX402Merchant(t, { PROOF_FAILURE_LIMIT: '3' })
  const url = `${m.url}/mcp`
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const listing = await (await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'fetch_price', arguments: { token: 'SOL' } } }) })).json() as { result: { structuredContent: { accepts: unknown[], resource: Record<string, unknown> } } }
  const required = listing.result.structuredContent
  // Payers without the tokens: each payload is well formed and fails at simulation.
  const payloads = await Promise.all(Array.from({ length: 8 }, async () => {
    const broke = await m.paid.newBuyer(0n)
    const transaction = await buildExactPayment(m.paid, { buyer: broke, feePayer: m.feePayer.address, amount: PRICE })
    return { x402Version: 2, resource: required.resource, accepted: required.accepts[0], payload: { transaction } }
  }))
  m.paid.chain.resetStats()
  const batch = payloads.map((payload, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'fetch_price', arguments: { token: 'SOL' }, _meta: { 'x402/payment': payload } } }))
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(batch) })
  const answers = await res.json() as Array<{ result: { structuredContent: { code?: string, error?: string } } }>
  t.equal(answers.length, 8)
  const limited = answers.filter(answer => answer.result.structuredContent.code === 'RATE_LIMITED').length
  t.ok(limited >= 5, `at least 5 of 8 held back (${limited})`)
  t.equal(m.paid.chain.stats().simulateTransaction, 3, 'the three admitted calls were simulated, no more')
})
