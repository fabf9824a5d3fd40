import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { TaskState, type Task } from '@a2a-js/sdk'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { a2aBuyer, artifactOf, payloadFor, x402Of } from '../fixtures/a2a-client.js'
import { BUYER_TOKENS, onChain, startMerchant, until } from '../fixtures/cluster-merchant.js'
import { connectMcp } from '../fixtures/mcp-client.js'
import { transactionIdOf } from '../fixtures/x402-payment.js'

/**
 * Issue #55 (9): once a payment may have been sent, MCP and A2A answer a settlement that is not
 * confirmed yet with its code and wait, and no accepts: an auto-paying client that saw accepts
 * would pay a second time. The node cannot tell the transaction's status (the cluster proxy
 * fails getSignatureStatuses); it lands meanwhile; the same payment retried delivers, charged once.
 * Balances are read on the chain itself.
 */

const FETCH_PRICE = 50_000n
const priceApi = await startPriceApi()
t.teardown(() => priceApi.stop())
const m = await startMerchant(t, { PRICE_API_URL: priceApi.url, PRICE_CACHE_TTL_MS: '0', X402_SETTLEMENT_TIMEOUT_MS: '300' })
const signatureOf = async (payload: PaymentPayload) => await transactionIdOf((payload.payload as { transaction: string }).transaction, m.feePayer)

t.test('MCP: a pending settlement is a tool error with its code and wait, no accepts; the same payment then delivers once', async t => {
  const client = await connectMcp(t, m.url)
  const args = { token: 'SOL', vs: 'USDC' }
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const required = (await client.callTool({ name: 'fetch_price', arguments: args }) as CallToolResult).structuredContent as unknown as PaymentRequired
  const payload = await payloadFor(buyer, required, m.paid.chain.url)
  const signature = await signatureOf(payload)
  const before = await m.balances(buyer.address)

  m.cluster.failStatuses(true)
  t.teardown(() => m.cluster.failStatuses(false))
  const pending = await client.callTool({ name: 'fetch_price', arguments: args, _meta: { 'x402/payment': payload } }) as CallToolResult
  t.equal(pending.isError, true)
  t.match(pending.structuredContent, { code: 'X402_SETTLEMENT_PENDING', statusCode: 503, retryAfterSeconds: Number, message: /retry the same payment/ })
  t.notOk('accepts' in (pending.structuredContent ?? {}), 'no accepts to pay again')
  await until(async () => (await onChain(m.paid, signature)) !== null)
  t.equal((await m.balances(buyer.address)).buyer, before.buyer - FETCH_PRICE, 'the money moved')

  m.cluster.failStatuses(false)
  const delivered = await client.callTool({ name: 'fetch_price', arguments: args, _meta: { 'x402/payment': payload } }) as CallToolResult
  t.notOk(delivered.isError, JSON.stringify(delivered.structuredContent).slice(0, 300))
  t.match(delivered.structuredContent, { data: { mintSymbol: 'SOL' } })
  const after = await m.balances(buyer.address)
  t.equal(before.buyer - after.buyer, FETCH_PRICE, 'charged once')
  t.equal(after.merchant - before.merchant, FETCH_PRICE)
})

t.test('A2A: a pending settlement fails the task with its code and wait as fields, no accepts; the same payment on a new task delivers once', async t => {
  const a2a = await a2aBuyer(m.url)
  const input = { skill: 'fetch-price', token: 'SOL' }
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const task = await a2a.start(input)
  const payload = await payloadFor(buyer, x402Of(task)['x402.payment.required'] as PaymentRequired, m.paid.chain.url)
  const signature = await signatureOf(payload)
  const before = await m.balances(buyer.address)

  m.cluster.failStatuses(true)
  t.teardown(() => m.cluster.failStatuses(false))
  const pending: Task = await a2a.pay(task.id, payload)
  t.equal(pending.status?.state, TaskState.TASK_STATE_FAILED)
  t.match(x402Of(pending), { 'x402.payment.status': 'payment-failed', 'x402.payment.error': 'X402_SETTLEMENT_PENDING', 'token-merchant/retryAfterSeconds': Number })
  t.notOk('x402.payment.required' in x402Of(pending), 'no accepts to pay again')
  t.match(pending.status?.message?.parts[0]?.content, { value: /^X402_SETTLEMENT_PENDING: .*retry the same payment on a new task in \d+ s/ })
  await until(async () => (await onChain(m.paid, signature)) !== null)
  t.equal((await m.balances(buyer.address)).buyer, before.buyer - FETCH_PRICE, 'the money moved')

  m.cluster.failStatuses(false)
  const done = await a2a.pay((await a2a.start(input)).id, payload)
  t.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(x402Of(done)).slice(0, 300))
  t.match(artifactOf(done), { data: { mintSymbol: 'SOL' } })
  const after = await m.balances(buyer.address)
  t.equal(before.buyer - after.buyer, FETCH_PRICE, 'charged once')
  t.equal(after.merchant - before.merchant, FETCH_PRICE)
})
