import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { PaymentRequired } from '@x402/core/types'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { a2aBuyer, payloadFor, x402Of } from '../fixtures/a2a-client.js'
import { connectMcp } from '../fixtures/mcp-client.js'
import { proofHeaders } from '../fixtures/paid-chain.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'

// Real paid calls on the local chain through every door, then /metrics as an operator scrapes it:
// each door's attempts and refusals under its own flow label, the settlements counted once, by
// the delivery core, whatever the door. A bound for a loaded machine, not a measure.
t.setTimeout(480_000)

const TOKEN = 'a-metrics-token-of-32-characters-at-least-0123456789'
const PRICE = 50_000n
const priceApi = await startPriceApi()
t.teardown(() => priceApi.stop())
const m = await startX402Merchant(t, { PRICE_API_URL: priceApi.url, METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN })
const rpcUrl = m.paid.chain.url
const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')

async function scrape (): Promise<string> {
  const res = await fetch(`${m.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(res.status, 200)
  return await res.text()
}

/** The value of one series, 0 when it is absent; labels in the order the metric declares them. */
function valueOf (text: string, name: string, labels: Record<string, string>): number {
  const selector = Object.entries(labels).map(([key, value]) => `${key}="${value}"`).join(',')
  const line = text.split('\n').find(line => line.startsWith(`${name}{${selector}} `))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1))
}

const merchantBefore = await m.merchantBalance()

t.test('proof headers (HTTP pay-then-prove): a delivery and a refusal, flow "proof"', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const signature = await m.paid.pay(buyer, PRICE)
  const paid = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: proofHeaders(signature, buyer.address) })
  t.equal(paid.status, 200, await paid.clone().text())
  const refused = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'x-payment-signature': 'not-a-signature', 'x-payment-wallet': buyer.address } })
  t.equal(refused.status, 402)
  t.match(await refused.json(), { code: 'INVALID_PAYMENT_HEADER' })
})

t.test('x402 over HTTP: a v2 payment delivered, a v1 header refused before any claim, each under its own flow', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const challenge = await fetch(`${m.url}/api/fetch-price/SOL`)
  t.equal(challenge.status, 402)
  const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString()) as PaymentRequired
  const paid = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'payment-signature': base64Json(await payloadFor(buyer, required, rpcUrl)) } })
  t.equal(paid.status, 200, await paid.clone().text())
  const refused = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'x-payment': 'not base64!' } })
  t.equal(refused.status, 402)
  t.match(await refused.json(), { code: 'X402_INVALID_PAYLOAD' })
})

t.test('MCP: a paid tool call delivered and a payload refused, flow "mcp"', async t => {
  const client = await connectMcp(t, m.url)
  const call = async (payment?: unknown) => await client.callTool({
    name: 'fetch_price', arguments: { token: 'SOL' }, ...(payment === undefined ? {} : { _meta: { 'x402/payment': payment } })
  }) as CallToolResult
  const buyer = await m.paid.newBuyer(1_000_000n)
  const required = (await call()).structuredContent as unknown as PaymentRequired
  const paid = await call(await payloadFor(buyer, required, rpcUrl))
  t.notOk(paid.isError, JSON.stringify(paid.structuredContent).slice(0, 300))
  const refused = await call('not a payload')
  t.match(refused.structuredContent, { code: 'X402_INVALID_PAYLOAD' })
})

t.test('A2A: a paid skill delivered and a payload refused, flow "a2a"', async t => {
  const a2a = await a2aBuyer(m.url)
  const buyer = await m.paid.newBuyer(1_000_000n)
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  const done = await a2a.pay(task.id, await payloadFor(buyer, x402Of(task)['x402.payment.required'] as PaymentRequired, rpcUrl))
  t.match(x402Of(done), { 'x402.payment.status': 'payment-completed' })
  const other = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  const refused = await a2a.pay(other.id, 'not a payload')
  t.match(x402Of(refused), { 'x402.payment.error': 'X402_INVALID_PAYLOAD' })
})

t.test('/metrics: every door\'s attempts and refusals under its own flow, each settlement counted once, the money on chain', async t => {
  const text = await scrape()
  const attempts = (flow: string, outcome: string) => valueOf(text, 'payment_attempts_total', { service: 'fetch-price', flow, outcome })
  const settled = (flow: string) => valueOf(text, 'payment_settlements_total', { service: 'fetch-price', flow, outcome: 'settled' })

  t.equal(attempts('proof', 'DELIVERED'), 1)
  t.equal(attempts('proof', 'INVALID_PAYMENT_HEADER'), 1)
  t.equal(attempts('x402-v2', 'DELIVERED'), 1)
  t.equal(attempts('x402-v1', 'X402_INVALID_PAYLOAD'), 1, 'an x402 refusal before the claim is labelled with its flow')
  t.equal(attempts('mcp', 'DELIVERED'), 1, 'MCP paid calls reach the attempts')
  t.equal(attempts('mcp', 'X402_INVALID_PAYLOAD'), 1)
  t.equal(attempts('a2a', 'DELIVERED'), 1, 'A2A paid skills reach the attempts')
  t.equal(attempts('a2a', 'X402_INVALID_PAYLOAD'), 1)
  t.notMatch(text, /^payment_attempts_total\{[^}]*flow="proof",outcome="X402_/m, 'no x402 refusal counted as a proof')

  for (const flow of ['proof', 'x402-v2', 'mcp', 'a2a']) t.equal(settled(flow), 1, `${flow}: one settlement`)
  t.equal(valueOf(text, 'payment_settlements_total', { service: 'fetch-price', flow: 'x402-v1', outcome: 'failed' }), 0, 'nothing settled for a refusal')
  t.equal(valueOf(text, 'x402_fee_payer_settlements_total', { outcome: 'delivered' }), 3, 'the fee payer signed the three x402 settlements (HTTP, MCP, A2A)')
  t.equal(valueOf(text, 'payment_challenges_total', { service: 'fetch-price', door: 'http' }), 1, 'the one HTTP 402 without payment')
  t.equal(valueOf(text, 'payment_challenges_total', { service: 'fetch-price', door: 'mcp' }), 1, 'MCP\'s PaymentRequired result to the one call without payment')
  t.equal(valueOf(text, 'payment_challenges_total', { service: 'fetch-price', door: 'a2a' }), 2, 'A2A\'s payment-required tasks: the two purchases started')

  t.equal(await m.merchantBalance() - merchantBefore, 4n * PRICE, 'four deliveries, four prices received on chain')
})
