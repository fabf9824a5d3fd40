import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit'
import { x402Client as X402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import t from 'tap'
import { PRICE_PATH, startPriceApi } from '@token-merchant/localnet/price-api'
import { PriceRecord, PriceResponse } from '../../../schemas/price.js'
import { proofHeaders } from '../../fixtures/paid-chain.js'
import { toolRefusal } from '../../../client/mcp.js'
import { connectMcp } from '../../fixtures/mcp-client.js'
import { startX402Merchant } from '../../fixtures/x402-merchant.js'
import { sqliteOf } from '../../helper.js'

FormatRegistry.Set('date-time', value => !Number.isNaN(Date.parse(value)))

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
const PRICE = 50_000n
const ANALYSIS_PRICE = 100_000n

// One merchant for the file: every case pays with its own buyer, so balances stay separate.
const priceApi = await startPriceApi()
t.teardown(() => priceApi.stop())
const m = await startX402Merchant(t, { PRICE_API_URL: priceApi.url, PRICE_CACHE_TTL_MS: '0', X402_SETTLEMENT_TIMEOUT_MS: '1000' })
const client = await connectMcp(t, m.url)

type Structured = Record<string, any>
const structured = (result: CallToolResult) => result.structuredContent as Structured

async function call (name: string, args: Record<string, unknown>, payment?: unknown): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args, ...(payment === undefined ? {} : { _meta: { 'x402/payment': payment } }) }) as CallToolResult
}

/** The official x402 client's payload for the requirements a tool returned. */
async function payloadFor (buyer: KeyPairSigner, required: PaymentRequired): Promise<PaymentPayload> {
  const payer = new X402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: m.paid.chain.url }))
  payer.setSpendControls(false)
  return await payer.createPaymentPayload(required)
}

async function auditRows (signature: string) {
  return sqliteOf(m.app).prepare('SELECT service, resource, payer, amount, outcome, flow, verified FROM audit_log WHERE signature = ? ORDER BY id').all(signature) as Structured[]
}

async function balances (buyer: Client | KeyPairSigner) {
  const address = (buyer as KeyPairSigner).address
  return { merchant: await m.merchantBalance(), buyer: await m.tokenBalance(address), sol: await m.solBalance(address) }
}

t.test('unpaid: the x402 PaymentRequired as an error result, the same terms as HTTP, and the tool does not run', async t => {
  priceApi.resetCalls()
  const before = await m.merchantBalance()
  const result = await call('fetch_price', { token: 'SOL' })
  t.equal(result.isError, true)
  const required = structured(result)
  t.match(required, { x402Version: 2, resource: { url: 'mcp://tool/fetch_price', mimeType: 'application/json' } })
  t.match(required, { code: 'PAYMENT_REQUIRED', error: /^PAYMENT_REQUIRED: fetch_price is paid/ }, 'why, as a field and as text for people')
  t.notOk('retryAfterSeconds' in required, 'nothing to wait for')
  t.same(JSON.parse((result.content[0] as { text: string }).text), required, 'content[0].text is the same object as JSON')
  t.match(required.accepts[0], { scheme: 'exact', network: DEVNET, amount: '50000', asset: m.paid.mint, payTo: m.paid.merchant.address, extra: { feePayer: m.feePayer.address } })

  const http = await fetch(`${m.url}/api/fetch-price/SOL`)
  t.equal(http.status, 402)
  const httpRequired = JSON.parse(Buffer.from(http.headers.get('payment-required') ?? '', 'base64').toString()) as PaymentRequired
  t.same(required.accepts, httpRequired.accepts, 'the same requirements as the HTTP PAYMENT-REQUIRED')
  t.same(priceApi.requests().filter(r => r.path === '/price/v3'), [], 'no price was read: the tool did not run')
  t.equal(await m.merchantBalance(), before)

  const analysis = structured(await call('analyze_token', { address: m.paid.mint }))
  t.match(analysis.accepts[0], { amount: '100000' }, 'analyze_token at its own price')
  t.equal(analysis.resource.url, 'mcp://tool/analyze_token')
})

t.test('paid with the official x402 client: the document, the receipt in _meta, exactly the price moved', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const required = structured(await call('fetch_price', { token: 'SOL', vs: 'USDC' })) as PaymentRequired
  const payload = await payloadFor(buyer, required)
  const before = await balances(buyer)

  const result = await call('fetch_price', { token: 'SOL', vs: 'USDC' }, payload)
  t.notOk(result.isError, JSON.stringify(result.structuredContent).slice(0, 300))
  const document = structured(result)
  t.same([...Value.Errors(PriceResponse, [PriceRecord], document)].map(e => `${e.path} ${e.message}`), [], 'the PriceResponse document of the HTTP route')
  t.match(document.data, { mintSymbol: 'SOL', vsTokenSymbol: 'USDC', source: 'jupiter-price-v3' })
  t.same(JSON.parse((result.content[0] as { text: string }).text), document, 'content[0].text is the same document')
  const receipt = result._meta?.['x402/payment-response'] as Structured
  t.match(receipt, { success: true, network: DEVNET, payer: buyer.address, transaction: String })

  const after = await balances(buyer)
  t.equal(after.merchant - before.merchant, PRICE, 'the merchant got exactly the price')
  t.equal(before.buyer - after.buyer, PRICE, 'the buyer paid exactly the price')
  t.equal(after.sol, before.sol, 'the buyer paid no SOL: the merchant is the fee payer')
  const status = await m.paid.chain.rpc.getSignatureStatuses([receipt.transaction]).send()
  t.ok(status.value[0]?.confirmationStatus, 'the receipt names a transaction on chain')
  t.match(await auditRows(receipt.transaction), [{ service: 'fetch-price', resource: 'mcp://tool/fetch_price', payer: buyer.address, amount: '50000', outcome: 'DELIVERED', flow: 'mcp', verified: 1 }])

  t.test('replayed: refused with the reason, nothing moves', async t => {
    const again = await call('fetch_price', { token: 'SOL', vs: 'USDC' }, payload)
    t.equal(again.isError, true)
    t.match(structured(again), { x402Version: 2, code: 'PAYMENT_ALREADY_USED', error: /^PAYMENT_ALREADY_USED: /, accepts: [{ amount: '50000' }] })
    t.same(toolRefusal(structured(again)), { code: 'PAYMENT_ALREADY_USED', retryAfterSeconds: undefined, reason: structured(again).error }, 'the client reads the fields')
    t.same(await balances(buyer), after)
  })

  t.test('the MCP-settled transaction on the HTTP routes: refused with the seed headers and with PAYMENT-SIGNATURE', async t => {
    const seed = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: proofHeaders(receipt.transaction, buyer.address) })
    t.equal(seed.status, 402)
    t.match(await seed.json(), { code: 'PAYMENT_ALREADY_USED' })
    const x402 = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') } })
    t.equal(x402.status, 402)
    t.match(await x402.json(), { code: 'X402_RESOURCE_MISMATCH' }, 'a payload offered for the tool never buys a URL')
    t.same(await balances(buyer), after, 'nothing moved')
  })
})

t.test('a payment settled over HTTP does not buy an MCP call', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const challenge = await fetch(`${m.url}/api/fetch-price/SOL`)
  const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString()) as PaymentRequired
  const payload = await payloadFor(buyer, required)
  const http = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') } })
  t.equal(http.status, 200, 'delivered over HTTP')
  const after = await balances(buyer)
  const mcp = await call('fetch_price', { token: 'SOL' }, payload)
  t.equal(mcp.isError, true)
  t.match(structured(mcp), { error: /^X402_RESOURCE_MISMATCH: / }, 'the payload names the URL it was offered for, not the tool')
  t.same(await balances(buyer), after, 'nothing moved')
})

t.test('the tool fails after the payment was verified: its own error, no money moves, the payment buys the next call', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const required = structured(await call('analyze_token', { address: m.paid.mint })) as PaymentRequired
  const payload = await payloadFor(buyer, required)
  const before = await balances(buyer)
  const nowhere = (await generateKeyPairSigner()).address // a valid address with no account behind it

  const failed = await call('analyze_token', { address: nowhere }, payload)
  t.equal(failed.isError, true)
  t.match(structured(failed), { statusCode: 404, code: 'MINT_NOT_FOUND', requestId: String })
  t.notOk(failed._meta?.['x402/payment-response'], 'no settlement')
  t.same(await balances(buyer), before, 'no money moved')

  const delivered = await call('analyze_token', { address: m.paid.mint }, payload)
  t.notOk(delivered.isError, JSON.stringify(delivered.structuredContent).slice(0, 300))
  t.match(structured(delivered), { mint: m.paid.mint, risk_score: Number })
  const receipt = delivered._meta?.['x402/payment-response'] as Structured
  t.equal((await m.merchantBalance()) - before.merchant, ANALYSIS_PRICE, 'the same payment bought the next call, once')
  t.match(await auditRows(receipt.transaction), [{ service: 'analyze-token', outcome: 'DELIVERED', flow: 'mcp' }], 'one row per payment: its final outcome')
})

t.test('settlement fails after the tool ran: a tool error with the reason and no accepts, the document withheld, nothing moved', async t => {
  const buyer = await m.paid.newBuyer(PRICE)
  const required = structured(await call('fetch_price', { token: 'SOL' })) as PaymentRequired
  const payload = await payloadFor(buyer, required)
  const before = await m.merchantBalance()
  const elsewhere = await m.paid.chain.createWallet()
  await m.paid.chain.createAta(m.paid.mint, elsewhere.address)

  // The price source answers slowly; meanwhile the buyer moves the tokens the payment needs.
  priceApi.resetCalls()
  priceApi.fail({ mode: 'slow', delayMs: 1500, times: 1, path: PRICE_PATH })
  const pending = call('fetch_price', { token: 'SOL' }, payload)
  while (priceApi.requests().every(r => r.path !== PRICE_PATH)) await new Promise(resolve => setTimeout(resolve, 20))
  await m.paid.pay(buyer, PRICE, { to: elsewhere.address })
  const result = await pending
  t.equal(result.isError, true)
  // The node refuses the send at preflight (-32002): nothing was forwarded, so the settlement failed
  // at once (not pending), with the reason, no document, and nothing moved.
  t.match(structured(result), { code: 'X402_SETTLEMENT_FAILED', statusCode: 402, message: /your tokens did not move/ })
  t.notOk('accepts' in structured(result), 'no accepts after the sent mark: an auto-paying client does not pay again')
  t.notOk('data' in structured(result), 'the price is withheld')
  t.notOk(result._meta?.['x402/payment-response'])
  t.equal(await m.merchantBalance(), before, 'nothing reached the merchant')
  const rows = sqliteOf(m.app).prepare("SELECT outcome, flow FROM audit_log WHERE payer = ? AND flow = 'mcp'").all(buyer.address)
  t.match(rows, [{ outcome: 'X402_SETTLEMENT_FAILED', flow: 'mcp' }])
  t.equal(rows.length, 1)

  // The same payment again, at once: the failed settlement left no lease to wait out (the claim is
  // released), and the transaction cannot land, so the simulation refuses it.
  const retried = await call('fetch_price', { token: 'SOL' }, payload)
  t.equal(retried.isError, true)
  t.match(structured(retried), { code: 'X402_SIMULATION_FAILED', error: /^X402_SIMULATION_FAILED: / })
  t.equal(await m.merchantBalance(), before, 'still nothing moved')
})

t.test('tampered payloads are refused with the reason and move nothing', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const required = structured(await call('fetch_price', { token: 'SOL' })) as PaymentRequired
  const payload = await payloadFor(buyer, required)
  const before = await balances(buyer)

  // A byte of the transaction message changed after the buyer signed it.
  const wire = Buffer.from((payload.payload as { transaction: string }).transaction, 'base64')
  wire[wire.length - 1] ^= 0xff
  const forged = { ...payload, payload: { ...payload.payload, transaction: wire.toString('base64') } }
  const refused = await call('fetch_price', { token: 'SOL' }, forged)
  t.equal(refused.isError, true)
  t.match(structured(refused), { x402Version: 2, error: /^X402_[A-Z_]+: /, accepts: [{ amount: '50000' }] })

  const cheaper = { ...payload, accepted: { ...payload.accepted, amount: '1' } }
  t.match(structured(await call('fetch_price', { token: 'SOL' }, cheaper)), { error: /^X402_REQUIREMENTS_MISMATCH: / })
  t.match(structured(await call('fetch_price', { token: 'SOL' }, 'not a payload')), { error: /^X402_INVALID_PAYLOAD: / })
  t.same(await balances(buyer), before, 'nothing moved')

  const genuine = await call('fetch_price', { token: 'SOL' }, payload)
  t.notOk(genuine.isError, 'the untouched payload still pays')
  t.equal((await m.merchantBalance()) - before.merchant, PRICE)
})

t.test('the same payment sent twice at once: one delivery, one settlement', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const required = structured(await call('fetch_price', { token: 'SOL' })) as PaymentRequired
  const payload = await payloadFor(buyer, required)
  const before = await m.merchantBalance()
  const other = await connectMcp(t, m.url)
  const results = await Promise.all([
    call('fetch_price', { token: 'SOL' }, payload),
    other.callTool({ name: 'fetch_price', arguments: { token: 'SOL' }, _meta: { 'x402/payment': payload } }) as Promise<CallToolResult>
  ])
  t.equal(results.filter(r => r.isError !== true).length, 1, 'exactly one delivered')
  const loser = structured(results.find(r => r.isError === true)!)
  t.match(loser, { code: /^(PAYMENT_IN_PROGRESS|PAYMENT_ALREADY_USED)$/ })
  if (loser.code === 'PAYMENT_IN_PROGRESS') {
    // In progress: the field says when to send the same payment again, as Retry-After does on HTTP; no accepts to pay anew.
    t.equal(toolRefusal(loser).retryAfterSeconds, 1)
    t.notOk('accepts' in loser, 'no accepts: the same payment is sent again')
  } else {
    t.equal(loser.error.startsWith(`${loser.code as string}: `), true, 'the field and the text say the same')
  }
  t.equal(await m.merchantBalance() - before, PRICE, 'paid once')
})

t.test('PROOF_FAILURE_LIMIT: failed MCP payments hold the client back as failed HTTP proofs do', async t => {
  const limited = await startX402Merchant(t, { PRICE_API_URL: priceApi.url, PROOF_FAILURE_LIMIT: '2' })
  const other = await connectMcp(t, limited.url)
  const paidCall = async (payment: unknown) => await other.callTool({ name: 'fetch_price', arguments: { token: 'SOL' }, _meta: { 'x402/payment': payment } }) as CallToolResult
  for (let i = 0; i < 2; i++) t.match(structured(await paidCall('not a payload')), { error: /^X402_INVALID_PAYLOAD: / })
  const held = await paidCall('not a payload')
  t.equal(held.isError, true)
  t.match(structured(held), { statusCode: 429, code: 'RATE_LIMITED', retryAfterSeconds: Number })
  t.match(structured(await other.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult), { x402Version: 2 },
    'a call without payment still gets the requirements')
})
