import t, { type Test } from 'tap'
import { build } from '../helper.js'
import { proofHeaders } from '../fixtures/paid-chain.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { buildExactPayment, paymentRequiredOf, v1Header, v2Header } from '../fixtures/x402-payment.js'
import { Mppx, solana } from '@solana/mpp/client'

// Every header the service sends is declared in the OpenAPI document for the status it comes with,
// and every header the document says always comes does: live answers over real HTTP, compared with
// the served document header by header (and with its `const` value where it states one).

/** HTTP's own framing headers: Node writes them, the document describes the body instead. */
const TRANSPORT = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'])
/**
 * Documented headers that some answers of a status carry and others not, and why: the coverage
 * check below accepts them missing from every answer of a status reached here. Every other
 * documented header must have come with at least one.
 */
const CONDITIONAL: Record<string, string> = {
  'x-payment-redelivered': 'only on a payment whose first answer did not reach its buyer (test/x402/redelivery.test.ts)',
  'retry-after': 'only with the codes of the status that are worth retrying',
  'payment-required': 'on a paid route\'s 400, 409, 429 and 503 only when the answer refuses a payment',
  'cache-control': 'on a paid route\'s 400, 409, 429 and 503 only when the answer refuses a payment',
  'x-payment-response': 'a paid 200 carries the receipt of its flow: this one, PAYMENT-RESPONSE or Payment-Receipt',
  'payment-response': 'a paid 200 carries the receipt of its flow: this one, X-PAYMENT-RESPONSE or Payment-Receipt',
  'payment-receipt': 'a paid 200 carries the receipt of its flow: this one (MPP), PAYMENT-RESPONSE or X-PAYMENT-RESPONSE',
  'mcp-session-id': 'only on the answer to initialize',
  'x-ratelimit-limit': 'not on answers made before the rate limit counts (a target too long, a refused origin)',
  'x-ratelimit-remaining': 'not on answers made before the rate limit counts (a target too long, a refused origin)',
  'x-ratelimit-reset': 'not on answers made before the rate limit counts (a target too long, a refused origin)',
  'strict-transport-security': 'not on answers made before routing, which do not know how the request came'
}

interface DocumentedHeader { required?: boolean, schema?: { const?: string } }
type Responses = Record<string, { headers?: Record<string, DocumentedHeader> }>
interface Document { paths: Record<string, Record<string, { responses: Responses }>> }

t.test('the answers\' headers are the documented ones, for every route and status reached', async (t) => {
  // Rate limiting on and every request "over HTTPS" behind a trusted proxy: the conditional fixed headers come too.
  const m = await startX402Merchant(t, { TRUST_PROXY: '1', RATE_LIMIT_MAX: '1000' })
  const document = await (await fetch(`${m.url}/openapi.json`)).json() as Document
  const seen = new Map<string, { documented: Record<string, DocumentedHeader>, sent: Set<string> }>()
  let answers = 0

  async function check (t: Test, method: string, template: string, res: Response, label = `${method.toUpperCase()} ${template} ${res.status}`) {
    await res.arrayBuffer()
    const responses = document.paths[template]?.[method]?.responses
    t.ok(responses, `${template} is documented`)
    const documented = responses?.[String(res.status)]?.headers ?? responses?.default?.headers ?? {}
    t.ok(responses?.[String(res.status)] !== undefined || responses?.default !== undefined, `${label}: the status is documented`)
    const sent = [...res.headers.keys()].filter(name => !TRANSPORT.has(name))
    for (const name of sent) {
      t.ok(documented[name], `${label}: ${name} is sent and documented`)
      const value = documented[name]?.schema?.const
      if (value !== undefined) t.equal(res.headers.get(name), value, `${label}: ${name} has the documented value`)
    }
    for (const [name, header] of Object.entries(documented)) {
      if (header.required === true) t.ok(res.headers.has(name), `${label}: ${name}, documented as always sent, is sent`)
    }
    const key = `${method} ${template} ${res.status}`
    const entry = seen.get(key) ?? { documented, sent: new Set<string>() }
    for (const name of sent) entry.sent.add(name)
    seen.set(key, entry)
    answers++
  }
  const get = async (path: string, headers: Record<string, string> = {}) => await fetch(`${m.url}${path}`, { headers: { 'x-forwarded-proto': 'https', ...headers } })

  const PRICE = '/api/fetch-price/{token}'
  const ANALYSIS = '/api/analyze-token/{address}'

  t.test('free documents, their 304s and their errors', async (t) => {
    for (const [template, path] of [['/.well-known/agent.json', '/.well-known/agent.json'], ['/.well-known/x402', '/.well-known/x402']]) {
      const first = await get(path)
      const etag = String(first.headers.get('etag'))
      await check(t, 'get', template, first)
      await check(t, 'get', template, await get(path, { 'if-none-match': etag }))
    }
    await check(t, 'get', '/health/live', await get('/health/live'))
    await check(t, 'get', '/health/ready', await get('/health/ready'))
    await check(t, 'get', '/reputation', await get('/reputation'))
    await check(t, 'get', '/reputation', await get('/reputation?window=fortnight'))
    await check(t, 'get', '/registry', await get('/registry'))
    await check(t, 'get', '/registry', await get('/registry?limit=-1'))
  })

  t.test('paid routes: challenges, refusals before payment, deliveries of every flow', async (t) => {
    await check(t, 'get', PRICE, await get('/api/fetch-price/SOL'))
    await check(t, 'get', PRICE, await get('/api/fetch-price/NOSUCHTOKEN'))
    await check(t, 'get', PRICE, await get(`/api/fetch-price/${'A'.repeat(300)}`))
    // Refused before routing: a malformed percent-encoding, and headers larger than Node reads.
    await check(t, 'get', PRICE, await get('/api/fetch-price/%E0%A4%A'), 'malformed target 400')
    await check(t, 'get', PRICE, await get('/api/fetch-price/SOL', { 'x-padding': 'x'.repeat(20_000) }), 'headers too large 431')
    await check(t, 'get', PRICE, await get('/api/fetch-price/SOL', { 'x-payment-signature': '1'.repeat(88), 'x-payment': 'e30=' }), 'payment forms conflict 400')
    await check(t, 'get', ANALYSIS, await get(`/api/analyze-token/${m.paid.mint}`))
    await check(t, 'get', ANALYSIS, await get('/api/analyze-token/not-an-address'))

    const buyer = await m.paid.newBuyer(10_000_000n)
    const proof = proofHeaders(await m.paid.pay(buyer, 50_000n), buyer.address)
    await check(t, 'get', PRICE, await get('/api/fetch-price/SOL', proof), 'proof 200')
    await check(t, 'get', PRICE, await get('/api/fetch-price/SOL', proof), 'spent proof 402')
    const analysisProof = proofHeaders(await m.paid.pay(buyer, 100_000n), buyer.address)
    await check(t, 'get', ANALYSIS, await get(`/api/analyze-token/${m.paid.mint}`, analysisProof), 'analysis proof 200')

    const required = paymentRequiredOf((await get('/api/fetch-price/SOL')).headers)
    const v2 = await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: 50_000n })
    await check(t, 'get', PRICE, await get('/api/fetch-price/SOL', { 'payment-signature': v2Header(v2, required.accepts[0], required.resource) }), 'x402 v2 200')
    const v1 = await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: 50_000n })
    await check(t, 'get', PRICE, await get('/api/fetch-price/SOL', { 'x-payment': v1Header(v1) }), 'x402 v1 200')
    // MPP's pull charge, bought with the unmodified @solana/mpp client over the same "HTTPS" requests.
    const mpp = Mppx.create({ methods: [solana.charge({ signer: buyer, rpcUrl: m.paid.chain.url })], polyfill: false, fetch: async (input, init) => await get(new URL(String(input)).pathname, Object.fromEntries(new Headers(init?.headers))) })
    const bought = await mpp.fetch(`${m.url}/api/fetch-price/SOL`)
    t.equal(bought.status, 200, 'bought with MPP')
    await check(t, 'get', PRICE, bought, 'MPP 200')

    // The node cannot answer: 503 with Retry-After and the terms again, the proof kept.
    const waiting = proofHeaders(await m.paid.pay(buyer, 50_000n), buyer.address)
    m.paid.chain.failMethod('getTransaction', { httpStatus: 503, retryAfter: 3 })
    await check(t, 'get', PRICE, await get('/api/fetch-price/SOL', waiting), 'RPC unavailable 503')
    m.paid.chain.failMethod('getTransaction', null)
  })

  t.test('POST /api/x402/prepare (the payment page\'s): prepared, malformed, not for sale', async (t) => {
    const prepare = async (body: unknown) => await fetch(`${m.url}/api/x402/prepare`, { method: 'POST', headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/json' }, body: JSON.stringify(body) })
    // Behind the trusted proxy the merchant's own URLs are https ones: the resource names one of them.
    const resource = `https://${new URL(m.url).host}/api/fetch-price/SOL`
    const buyer = await m.paid.newBuyer(1_000_000n)
    await check(t, 'post', '/api/x402/prepare', await prepare({ resource, buyer: buyer.address }), 'prepare 200')
    await check(t, 'post', '/api/x402/prepare', await prepare({ resource, buyer: 'not-an-address' }), 'prepare 400')
    await check(t, 'post', '/api/x402/prepare', await prepare({ resource: 'https://elsewhere.example/api/fetch-price/SOL', buyer: buyer.address }), 'prepare 404')
  })

  t.test('POST /mcp: answers, notifications and refusals', async (t) => {
    const mcp = async (body: string, headers: Record<string, string> = {}) => await fetch(`${m.url}/mcp`, {
      method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-proto': 'https', ...headers }
    })
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'headers-test', version: '1' } } })
    await check(t, 'post', '/mcp', await mcp(initialize), 'initialize 200')
    await check(t, 'post', '/mcp', await mcp(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })), 'tools/list 200')
    await check(t, 'post', '/mcp', await mcp(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })))
    await check(t, 'post', '/mcp', await mcp('{"not":"json-rpc"}'))
    await check(t, 'post', '/mcp', await mcp('x', { 'content-type': 'text/plain' }))
    await check(t, 'post', '/mcp', await mcp(initialize, { accept: 'text/html' }))
    await check(t, 'post', '/mcp', await mcp(initialize, { origin: 'https://elsewhere.example' }))
  })

  t.test('rate limited: 429 with Retry-After, on a merchant that allows one request a window', async (t) => {
    const limited = await build(t, { ...m.paid.env, RATE_LIMIT_MAX: '1', TRUST_PROXY: '1' })
    const url = await limited.listen({ port: 0, host: '127.0.0.1' })
    const https = { 'x-forwarded-proto': 'https' }
    await (await fetch(`${url}/api/fetch-price/SOL`, { headers: https })).arrayBuffer()
    const res = await fetch(`${url}/api/fetch-price/SOL`, { headers: https })
    t.equal(res.status, 429)
    t.ok(res.headers.get('retry-after'))
    await check(t, 'get', PRICE, res)
  })

  t.test('every header documented for a status reached came with some answer of it', async (t) => {
    t.ok(answers >= 30, `${answers} answers compared`)
    for (const [key, { documented, sent }] of seen) {
      for (const name of Object.keys(documented)) {
        if (sent.has(name)) continue
        const conditional = CONDITIONAL[name]
        t.ok(conditional, `${key}: ${name} is documented and came with no answer (${conditional ?? 'never sent'})`)
      }
    }
  })
})
