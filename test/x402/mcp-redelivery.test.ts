import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { KeyPairSigner } from '@solana/kit'
import { x402Client as X402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { PRICE_PATH, startPriceApi } from '@token-merchant/localnet/price-api'
import { BUYER_TOKENS, PRICE, startMerchant, until } from '../fixtures/cluster-merchant.js'
import { transactionIdOf } from '../fixtures/x402-payment.js'
import { sqliteOf } from '../helper.js'

/**
 * Issue #29 over MCP, with the official SDK client against a merchant on the local chain behind
 * the cluster-timing proxy: a call cancelled while settlement is under way still lets the buyer
 * fetch what it paid for (once, nothing charged twice); a call cancelled before settlement moves
 * nothing; the x402 payment-identifier names one purchase; one client cannot cancel another's call.
 * The merchant's steps are held at known points (a held RPC reply, a slow price source) instead of
 * fixed sleeps. Balances are read on the chain itself.
 */

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
const REDELIVERED = 'token-merchant/redelivered'
const RECEIPT = 'x402/payment-response'
const NOT_REACHED = 'CLIENT_ABORTED_AFTER_PAYMENT'

const priceApi = await startPriceApi()
t.teardown(() => priceApi.stop())
// One database file for two instances (a load balancer may send a cancel notice to either); not in
// testFolder(t), which each build() claims afresh.
const shared = mkdtempSync(join(tmpdir(), 'mcp-redelivery-'))
t.teardown(() => rmSync(shared, { recursive: true, force: true }))
const DATABASE_PATH = join(shared, 'merchant.db')
const m = await startMerchant(t, { PRICE_API_URL: priceApi.url, PRICE_CACHE_TTL_MS: '0', X402_SETTLEMENT_TIMEOUT_MS: '1000', DATABASE_PATH }, 2)
const [, otherUrl] = m.urls

type Structured = Record<string, any>
const structured = (result: CallToolResult) => result.structuredContent as Structured
const tokenArgs = (token: string) => ({ token, vs: 'USDC' })

/** One POST of the SDK client as it went out, and the HTTP status the merchant answered it with. */
interface Post { body: any, status?: number }

/** The SDK's own client over streamable HTTP, every POST it makes recorded (its JSON-RPC ids, when the merchant answered). */
async function connect (t: Test, url = m.url) {
  const posts: Post[] = []
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), {
    fetch: async (input, init) => {
      const post: Post = { body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined }
      posts.push(post)
      const response = await fetch(input, init)
      post.status = response.status
      return response
    }
  })
  const client = new Client({ name: 'redelivery-tests', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  return {
    client,
    transport,
    posts,
    /** The JSON-RPC id of the latest tools/call this client sent. */
    lastCallId: () => posts.filter(post => post.body?.method === 'tools/call').at(-1)?.body.id as number,
    /** The merchant answered this client's cancel notice (it acts on it before answering). */
    cancelAnswered: () => posts.some(post => post.body?.method === 'notifications/cancelled' && post.status === 202)
  }
}

const paidParams = (args: Record<string, unknown>, payload: unknown) => ({ name: 'fetch_price', arguments: args, _meta: { 'x402/payment': payload } })

async function callPaid (client: Client, args: Record<string, unknown>, payload: unknown): Promise<CallToolResult> {
  return await client.callTool(paidParams(args, payload)) as CallToolResult
}

/** The official x402 client's payload for the PaymentRequired an unpaid call answers. */
async function payloadFor (client: Client, buyer: KeyPairSigner, args: Record<string, unknown>): Promise<PaymentPayload> {
  const required = structured(await client.callTool({ name: 'fetch_price', arguments: args }) as CallToolResult) as PaymentRequired
  const payer = new X402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: m.paid.chain.url }))
  payer.setSpendControls(false)
  return await payer.createPaymentPayload(required)
}

/** The payload carrying a payment-identifier (the spec's helper fills `info.id`). */
function withPaymentId (payload: PaymentPayload, id: string): PaymentPayload {
  const copy = structuredClone(payload)
  copy.extensions = appendPaymentIdentifierToExtensions({ ...copy.extensions, [PAYMENT_IDENTIFIER]: { info: { required: false } } }, id)
  return copy
}

const signatureOf = async (payload: PaymentPayload) => await transactionIdOf((payload.payload as { transaction: string }).transaction, m.feePayer)
const claimOf = async (app: FastifyInstance, signature: string) => await app.store.claims.status(signature)
const claimRow = (signature: string) => sqliteOf(m.app).prepare('SELECT status, cancelled FROM payment_claims WHERE signature = ?').get(signature) as { status: string, cancelled: number } | undefined
const auditRows = (signature: string) => sqliteOf(m.app).prepare('SELECT outcome, flow, status FROM audit_log WHERE signature = ? ORDER BY id').all(signature) as Structured[]

/** Waits for the payment's audit row (written once the MCP answer went out) to say `outcome`. */
async function auditSays (signature: string, outcome: string) {
  await until(() => auditRows(signature).some(row => row.outcome === outcome)).catch(() => {})
  return auditRows(signature)
}

/** The PaymentRequired a refused paid call answers: its `error` starts with the code. */
function refusedWith (t: Test, result: CallToolResult, code: string, message: string) {
  t.equal(result.isError, true, `${message}: refused`)
  t.match(structured(result), { x402Version: 2, error: new RegExp(`^${code}: `) }, `${message}: ${code}`)
  t.notOk(result._meta?.[RECEIPT], `${message}: no receipt`)
}

/** A cancel notice POSTed by hand: with a session id (or none), for a JSON-RPC id. */
async function cancelNotice (url: string, requestId: number, sessionId?: string) {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }) },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'not yours' } })
  })
  return response.status
}

/** Starts a paid call with an AbortSignal; resolves to the result, or to the error the SDK rejected with. */
function cancellableCall (client: Client, args: Record<string, unknown>, payload: unknown) {
  const controller = new AbortController()
  const outcome = client.callTool(paidParams(args, payload), undefined, { signal: controller.signal }).then(result => result as CallToolResult, (error: unknown) => error as Error)
  return { controller, outcome }
}

/** A new buyer's fetch_price payload built on client `a`, its transaction signature and the balances before it. */
async function newPayment (a: Awaited<ReturnType<typeof connect>>) {
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const payload = await payloadFor(a.client, buyer, tokenArgs('SOL'))
  return { buyer, payload, signature: await signatureOf(payload), before: await m.balances(buyer.address) }
}

/**
 * A paid fetch_price call from a new buyer on client `a`, held while settlement is under way: the
 * node keeps its answer to sendTransaction (the transaction is on its way) until `release`.
 */
async function settlingCall (a: Awaited<ReturnType<typeof connect>>) {
  const { buyer, payload, signature, before } = await newPayment(a)
  const sends = m.cluster.calls('sendTransaction')
  const forwarded = m.cluster.forwardedSends()
  const release = m.cluster.holdReplies('sendTransaction')
  const call = cancellableCall(a.client, tokenArgs('SOL'), payload)
  await until(() => m.cluster.calls('sendTransaction') > sends)
  return { buyer, payload, signature, before, forwarded, release, call }
}

t.test('cancelled (AbortSignal) while settlement is under way: moved once, the same payload fetches the result and the original receipt', async t => {
  const a = await connect(t)
  // The node is slow to answer the send (the transaction is on its way): the buyer gives up then.
  const { buyer, payload, signature, before, forwarded, release, call } = await settlingCall(a)
  t.equal((await claimOf(m.app, signature))?.status, 'sent', 'settlement is under way')
  call.controller.abort(new Error('the buyer gave up'))
  await until(a.cancelAnswered)
  release()
  t.match(await call.outcome, { message: /the buyer gave up/ }, 'the SDK call rejected: the buyer has no result')

  // The merchant finished settling and wrote a result nobody read: kept, counted as not reached.
  t.match(await auditSays(signature, NOT_REACHED), [{ outcome: NOT_REACHED, flow: 'mcp' }], 'the audit row says the answer did not reach the buyer')
  t.equal((await claimOf(m.app, signature))?.status, 'redeemed')
  const paid = await m.balances(buyer.address)
  t.equal(before.buyer - paid.buyer, PRICE, 'the buyer paid the price')
  t.equal(paid.merchant - before.merchant, PRICE, 'the merchant got the price')

  const again = await callPaid(a.client, tokenArgs('SOL'), payload)
  t.notOk(again.isError, JSON.stringify(again.structuredContent).slice(0, 300))
  t.match(structured(again).data, { mintSymbol: 'SOL', vsTokenSymbol: 'USDC' }, 'the price document')
  t.equal(again._meta?.[REDELIVERED], true, '_meta says it is a re-delivery')
  t.match(again._meta?.[RECEIPT], { success: true, transaction: signature, payer: buyer.address, network: DEVNET }, 'the original receipt')
  t.same(await m.balances(buyer.address), paid, 'nothing charged again')
  t.equal(m.cluster.forwardedSends(), forwarded + 1, 'one transaction reached the chain')
  t.match(await auditSays(signature, 'DELIVERED'), [{ outcome: 'DELIVERED', flow: 'mcp' }], 'one audit row, now DELIVERED')
  t.equal(auditRows(signature).length, 1)

  // The re-delivered result reached the buyer: the payment is used now, as any delivered one.
  refusedWith(t, await callPaid(a.client, tokenArgs('SOL'), payload), 'PAYMENT_ALREADY_USED', 'the same payload once the result reached the buyer')
  refusedWith(t, await callPaid(a.client, tokenArgs('JUP'), payload), 'PAYMENT_ALREADY_USED', 'the same payload for other arguments')
  t.same(await m.balances(buyer.address), paid, 'nothing moved')
})

t.test('the client closes (its POST ends) while settlement is under way: the result did not reach it, another client with the payload fetches it', async t => {
  const a = await connect(t)
  const { buyer, payload, signature, before, release, call } = await settlingCall(a)
  await a.client.close()
  t.type(await call.outcome, Error, 'the call ended without a result')
  release()
  t.match(await auditSays(signature, NOT_REACHED), [{ outcome: NOT_REACHED }], 'settled, not reached')
  const paid = await m.balances(buyer.address)
  t.equal(paid.merchant - before.merchant, PRICE, 'the money moved')

  const b = await connect(t)
  const again = await callPaid(b.client, tokenArgs('SOL'), payload)
  t.equal(again._meta?.[REDELIVERED], true, 're-delivered')
  t.match(again._meta?.[RECEIPT], { transaction: signature, payer: buyer.address })
  t.same(await m.balances(buyer.address), paid, 'nothing charged again')
})

t.test('a cancel notice reaching another instance while settlement is under way: the result counts as not delivered there too', async t => {
  const a = await connect(t)
  const { buyer, payload, signature, before, release, call } = await settlingCall(a)
  // The notice goes to the other instance (as a load balancer may send it): only the store knows.
  t.equal(await cancelNotice(otherUrl, a.lastCallId(), a.transport.sessionId), 202)
  release()
  const result = await call.outcome as CallToolResult
  t.notOk(result.isError, 'the instance serving the call answered it')
  t.equal(claimRow(signature)?.cancelled, 1, 'the claim is marked cancelled')
  const paid = await m.balances(buyer.address)
  t.equal(paid.merchant - before.merchant, PRICE)

  const again = await callPaid(a.client, tokenArgs('SOL'), payload)
  t.equal(again._meta?.[REDELIVERED], true, 're-delivered: the cancel came after settlement started')
  t.match(again._meta?.[RECEIPT], { transaction: signature })
  t.same(await m.balances(buyer.address), paid, 'nothing charged again')
  await auditSays(signature, 'DELIVERED')
  refusedWith(t, await callPaid(a.client, tokenArgs('SOL'), payload), 'PAYMENT_ALREADY_USED', 'the same payload once the re-delivery reached the buyer')
})

/** A paid fetch_price call from a new buyer on client `a`, under way while the tool waits on a slow price source (before settlement). */
async function callWhileToolRuns (a: Awaited<ReturnType<typeof connect>>) {
  const { buyer, payload, signature, before } = await newPayment(a)
  const sends = m.cluster.calls('sendTransaction')
  priceApi.resetCalls()
  priceApi.fail({ mode: 'slow', delayMs: 700, times: 1, path: PRICE_PATH })
  const call = cancellableCall(a.client, tokenArgs('SOL'), payload)
  await until(() => priceApi.requests().some(request => request.path === PRICE_PATH))
  return { buyer, payload, signature, before, sends, call }
}

t.test('cancelled before settlement: nothing moves, the claim is released, the same payload buys later (once)', async t => {
  const a = await connect(t)

  t.test('while the tool runs (a slow price source)', async t => {
    const { buyer, payload, signature, before, sends, call } = await callWhileToolRuns(a)
    call.controller.abort(new Error('the buyer gave up'))
    await until(a.cancelAnswered)
    t.equal((await claimOf(m.app, signature))?.status, 'pending', 'the cancel came before settlement')
    t.match(await call.outcome, { message: /the buyer gave up/ })

    t.match(await auditSays(signature, 'CLIENT_ABORTED'), [{ outcome: 'CLIENT_ABORTED', flow: 'mcp' }], 'the audit row says the client left before paying')
    t.equal(await claimOf(m.app, signature), undefined, 'the claim is released')
    t.equal(m.cluster.calls('sendTransaction'), sends, 'nothing was sent')
    t.same(await m.balances(buyer.address), before, 'nothing moved')

    const bought = await callPaid(a.client, tokenArgs('SOL'), payload)
    t.notOk(bought.isError, JSON.stringify(bought.structuredContent).slice(0, 300))
    t.notOk(bought._meta?.[REDELIVERED], 'a purchase, not a re-delivery')
    t.match(bought._meta?.[RECEIPT], { success: true, transaction: signature })
    const after = await m.balances(buyer.address)
    t.equal(before.buyer - after.buyer, PRICE, 'paid once')
    t.equal(after.merchant - before.merchant, PRICE)
  })

  t.test('while the payment is verified (before its claim exists)', async t => {
    const { buyer, payload, signature, before } = await newPayment(a)
    const sends = m.cluster.calls('sendTransaction')
    const simulations = m.cluster.calls('simulateTransaction')

    // The node is slow to simulate the transaction (the library's verification): the claim is not taken yet.
    const release = m.cluster.holdReplies('simulateTransaction')
    const call = cancellableCall(a.client, tokenArgs('SOL'), payload)
    await until(() => m.cluster.calls('simulateTransaction') > simulations)
    t.equal(await claimOf(m.app, signature), undefined, 'no claim yet')
    call.controller.abort(new Error('the buyer gave up'))
    await until(a.cancelAnswered)
    release()
    t.match(await call.outcome, { message: /the buyer gave up/ })

    await until(() => auditRows(signature).length > 0).catch(() => {})
    t.match(auditRows(signature), [{ outcome: 'CLIENT_ABORTED', flow: 'mcp' }], 'the call ended before settlement')
    t.equal(await claimOf(m.app, signature), undefined, 'the claim is released')
    t.equal(m.cluster.calls('sendTransaction'), sends, 'nothing was sent')
    t.same(await m.balances(buyer.address), before, 'nothing moved')

    const bought = await callPaid(a.client, tokenArgs('SOL'), payload)
    t.notOk(bought.isError, JSON.stringify(bought.structuredContent).slice(0, 300))
    t.equal((await m.balances(buyer.address)).merchant - before.merchant, PRICE, 'the same payload bought it, once')
  })

  t.test('through another instance, while the tool runs: settlement is refused by the store', async t => {
    const { buyer, payload, signature, before, sends, call } = await callWhileToolRuns(a)
    t.equal(await cancelNotice(otherUrl, a.lastCallId(), a.transport.sessionId), 202)
    t.equal(claimRow(signature)?.cancelled, 1, 'the claim is marked cancelled before settlement')
    // Nobody reads this answer (the SDK dropped the call): only that it is no result matters.
    const result = await call.outcome as CallToolResult
    // Refused at the sent mark: a tool error with its code, no accepts to pay again.
    t.equal(result.isError, true, 'the instance serving the call: refused')
    t.match(structured(result), { code: 'PAYMENT_IN_PROGRESS', retryAfterSeconds: 1 })
    t.notOk('accepts' in structured(result), 'no accepts')
    t.notOk(result._meta?.[RECEIPT], 'no receipt')
    t.equal(await claimOf(m.app, signature), undefined, 'the claim is released')
    t.equal(m.cluster.calls('sendTransaction'), sends, 'nothing was sent')
    t.same(await m.balances(buyer.address), before, 'nothing moved')

    const bought = await callPaid(a.client, tokenArgs('SOL'), payload)
    t.notOk(bought.isError, JSON.stringify(bought.structuredContent).slice(0, 300))
    t.equal((await m.balances(buyer.address)).merchant - before.merchant, PRICE, 'the same payload bought it, once')
  })
})

t.test('payment-identifier over MCP: one purchase per id', async t => {
  const a = await connect(t)
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const id = generatePaymentId()
  const payload = withPaymentId(await payloadFor(a.client, buyer, tokenArgs('SOL')), id)
  const signature = await signatureOf(payload)
  const before = await m.balances(buyer.address)

  const first = await callPaid(a.client, tokenArgs('SOL'), payload)
  t.notOk(first.isError, JSON.stringify(first.structuredContent).slice(0, 300))
  t.notOk(first._meta?.[REDELIVERED])
  t.match(await auditSays(signature, 'DELIVERED'), [{ outcome: 'DELIVERED' }], 'delivered, and it reached the buyer')
  const paid = await m.balances(buyer.address)
  t.equal(paid.merchant - before.merchant, PRICE)

  t.test('the same payload and id: the stored result, no second charge', async t => {
    const again = await callPaid(a.client, tokenArgs('SOL'), payload)
    t.notOk(again.isError, JSON.stringify(again.structuredContent).slice(0, 300))
    t.same(structured(again), structured(first), 'the same document')
    t.equal(again._meta?.[REDELIVERED], true)
    t.same(again._meta?.[RECEIPT], first._meta?.[RECEIPT], 'the original receipt')
    t.same(await m.balances(buyer.address), paid)
  })

  t.test('a new payment under the same id for the same request: the stored result, the new one never sent', async t => {
    const second = withPaymentId(await payloadFor(a.client, buyer, tokenArgs('SOL')), id)
    const forwarded = m.cluster.forwardedSends()
    const again = await callPaid(a.client, tokenArgs('SOL'), second)
    t.notOk(again.isError, JSON.stringify(again.structuredContent).slice(0, 300))
    t.equal(again._meta?.[REDELIVERED], true)
    t.match(again._meta?.[RECEIPT], { transaction: signature }, 'the receipt of the payment that bought it')
    t.equal(await claimOf(m.app, await signatureOf(second)), undefined, 'the new payment is not claimed')
    t.equal(m.cluster.forwardedSends(), forwarded, 'nothing sent')
    t.same(await m.balances(buyer.address), paid)
  })

  t.test('the same id with other arguments: PAYMENT_ID_CONFLICT, nothing moved', async t => {
    refusedWith(t, await callPaid(a.client, tokenArgs('JUP'), payload), 'PAYMENT_ID_CONFLICT', 'the same payload and id for another token')
    const other = withPaymentId(await payloadFor(a.client, buyer, tokenArgs('JUP')), id)
    refusedWith(t, await callPaid(a.client, tokenArgs('JUP'), other), 'PAYMENT_ID_CONFLICT', 'a new payment under the same id for another token')
    t.equal(await claimOf(m.app, await signatureOf(other)), undefined, 'the new payment is not claimed')
    t.same(await m.balances(buyer.address), paid)
  })

  t.test('a malformed id: X402_PAYMENT_ID_INVALID, nothing moved', async t => {
    const fresh = await payloadFor(a.client, buyer, tokenArgs('SOL'))
    for (const bad of ['too-short', 'has spaces and ! in it', 'x'.repeat(129), 42]) {
      const malformed = { ...fresh, extensions: { [PAYMENT_IDENTIFIER]: { info: { required: false, id: bad } } } }
      refusedWith(t, await callPaid(a.client, tokenArgs('SOL'), malformed), 'X402_PAYMENT_ID_INVALID', `id ${JSON.stringify(bad).slice(0, 20)}`)
    }
    t.equal(await claimOf(m.app, await signatureOf(fresh)), undefined, 'never claimed')
    t.same(await m.balances(buyer.address), paid, 'nothing moved')
  })

  t.test('the schema a payload carries is not the merchant\'s: a valid id is taken whatever it says', async t => {
    // The payload echoes the extension; a buyer-chosen JSON Schema there must not judge the id (nor
    // be compiled per request: a buyer-chosen regex could hold the event loop, ReDoS).
    const fresh = withPaymentId(await payloadFor(a.client, buyer, tokenArgs('SOL')), generatePaymentId())
    const ext = (fresh.extensions as Structured)[PAYMENT_IDENTIFIER]
    ext.schema = { type: 'object', properties: { id: { type: 'string', pattern: '^(a|aa)+$b' } } }
    const result = await callPaid(a.client, tokenArgs('SOL'), fresh)
    t.notOk(result.isError, JSON.stringify(result.structuredContent).slice(0, 300))
    t.equal((await m.balances(buyer.address)).merchant - paid.merchant, PRICE, 'bought, once')
  })
})

t.test('a delivered MCP result that reached the buyer: the same payload without id is PAYMENT_ALREADY_USED', async t => {
  const a = await connect(t)
  const { buyer, payload, signature, before } = await newPayment(a)
  const delivered = await callPaid(a.client, tokenArgs('SOL'), payload)
  t.notOk(delivered.isError, JSON.stringify(delivered.structuredContent).slice(0, 300))
  t.match(await auditSays(signature, 'DELIVERED'), [{ outcome: 'DELIVERED' }])
  const paid = await m.balances(buyer.address)
  t.equal(paid.merchant - before.merchant, PRICE)

  refusedWith(t, await callPaid(a.client, tokenArgs('SOL'), payload), 'PAYMENT_ALREADY_USED', 'the same payload and arguments')
  refusedWith(t, await callPaid(a.client, tokenArgs('JUP'), payload), 'PAYMENT_ALREADY_USED', 'the same payload, other arguments')
  const b = await connect(t)
  refusedWith(t, await callPaid(b.client, tokenArgs('SOL'), payload), 'PAYMENT_ALREADY_USED', 'the same payload from another client')
  t.same(await m.balances(buyer.address), paid, 'nothing moved')
})

t.test('one client cannot cancel another\'s call: a notice under another session id, or none, is ignored', async t => {
  const a = await connect(t)
  const b = await connect(t)
  t.ok(a.transport.sessionId !== undefined && b.transport.sessionId !== undefined && a.transport.sessionId !== b.transport.sessionId, 'each client has its own session')
  const { buyer, payload, signature, before, release, call } = await settlingCall(a)
  const id = a.lastCallId()
  // B's SDK client names A's JSON-RPC id under its own session; raw notices with no session or a made-up one.
  await b.client.notification({ method: 'notifications/cancelled', params: { requestId: id, reason: 'not yours' } })
  t.ok(b.cancelAnswered(), 'B\'s notice was answered')
  t.equal(await cancelNotice(m.url, id), 202, 'no session')
  t.equal(await cancelNotice(otherUrl, id, randomBytes(24).toString('base64url')), 202, 'a made-up session')
  t.equal(await cancelNotice(m.url, id, 'not-a-session'), 202, 'a malformed session')
  t.equal(claimRow(signature)?.cancelled, 0, 'A\'s claim is not cancelled')
  release()

  const result = await call.outcome as CallToolResult
  t.notOk(result.isError, 'A got its result')
  t.match(result._meta?.[RECEIPT], { success: true, transaction: signature })
  t.match(await auditSays(signature, 'DELIVERED'), [{ outcome: 'DELIVERED' }], 'it reached A')
  const after = await m.balances(buyer.address)
  t.equal(after.merchant - before.merchant, PRICE)
  refusedWith(t, await callPaid(a.client, tokenArgs('SOL'), payload), 'PAYMENT_ALREADY_USED', 'the same payload after it reached A')
  t.same(await m.balances(buyer.address), after)
})
