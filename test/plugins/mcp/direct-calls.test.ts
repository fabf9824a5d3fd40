// A single tools/call is answered by the merchant's own code (MCP_DIRECT_CALLS, lib/doors/mcp/direct-tool-call.ts);
// every other message by the SDK's transport. The same requests go to a merchant with the direct
// path and to one without it: status, headers and bodies must be the same.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { build } from '../../helper.js'
import { listen } from '../../fixtures/mcp-client.js'

const priceApi = await startPriceApi()
t.teardown(() => priceApi.stop())
const shared = mkdtempSync(join(tmpdir(), 'direct-calls-'))
t.teardown(() => rmSync(shared, { recursive: true, force: true }))
const env = {
  PRICE_API_URL: priceApi.url,
  PAYMENT_ADDRESS: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx',
  MERCHANT_KEYPAIR_PATH: join(shared, 'merchant-keypair.json'),
  PUBLIC_BASE_URL: 'https://merchant.example'
}
const direct = await listen(await build(t, { ...env, MCP_DIRECT_CALLS: 'true' }))
const sdk = await listen(await build(t, { ...env, MCP_DIRECT_CALLS: 'false' }))

// Headers that differ between any two answers: the time, and when the rate limit's window ends.
const VARYING = new Set(['date', 'x-ratelimit-reset', 'ratelimit-reset', 'ratelimit'])

interface Answer { status?: number, headers: IncomingHttpHeaders, body: string }

// MPP's challenges are bound to the instant each merchant made them (id, expiry): blanked, the
// rest of the body compared byte for byte (both fields keep their length, and so Content-Length).
const CHALLENGE_INSTANT = /"expires":"[^"]{24}","id":"[A-Za-z0-9_-]{43}"/g
const blankInstants = (answer: Answer): Answer => ({ ...answer, body: answer.body.replace(CHALLENGE_INSTANT, '"expires":"…","id":"…"') })

async function post (baseUrl: string, body: string, headers: Record<string, string>): Promise<Answer> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}/mcp`, { method: 'POST', headers }, res => {
      let text = ''
      res.setEncoding('utf8').on('data', chunk => { text += chunk }).on('end', () => {
        const kept = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !VARYING.has(name)))
        resolve({ status: res.statusCode, headers: kept, body: text })
      })
    })
    req.on('error', reject).end(body)
  })
}

const ACCEPT = 'application/json, text/event-stream'
const JSON_HEADERS = { 'content-type': 'application/json', accept: ACCEPT }
const call = (params: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params, ...extra })

const cases: Record<string, { body: unknown, headers?: Record<string, string>, answered?: 'directly' }> = {
  'a free tool': { body: call({ name: 'get_manifest', arguments: {} }), answered: 'directly' },
  'a paid tool without payment (PaymentRequired)': { body: call({ name: 'fetch_price', arguments: { token: 'SOL' } }), answered: 'directly' },
  'a paid tool with a malformed payment': { body: call({ name: 'fetch_price', arguments: { token: 'SOL' }, _meta: { 'x402/payment': { x402Version: 2 } } }), answered: 'directly' },
  'arguments the tool refuses': { body: call({ name: 'analyze_token', arguments: { mint: 'not-a-mint', extra: 1 } }), answered: 'directly' },
  'an unknown tool (-32602)': { body: call({ name: 'buy_everything', arguments: {} }), answered: 'directly' },
  'no params (-32602)': { body: { jsonrpc: '2.0', id: 7, method: 'tools/call' }, answered: 'directly' },
  'arguments an array (-32602)': { body: call({ name: 'get_manifest', arguments: [] }), answered: 'directly' },
  'a string id': { body: { ...call({ name: 'get_manifest' }), id: 'call-1' }, answered: 'directly' },
  'a progress token': { body: call({ name: 'get_manifest', _meta: { progressToken: 'p1' } }), answered: 'directly' },
  'a supported protocol version': { body: call({ name: 'get_manifest' }), headers: { 'mcp-protocol-version': '2025-06-18' }, answered: 'directly' },
  'an unsupported protocol version (400)': { body: call({ name: 'get_manifest' }), headers: { 'mcp-protocol-version': '1999-01-01' } },
  'no Accept (406)': { body: call({ name: 'get_manifest' }), headers: { accept: '' } },
  'Accept without event streams (406)': { body: call({ name: 'get_manifest' }), headers: { accept: 'application/json' } },
  'an unknown key beside the request': { body: call({ name: 'get_manifest' }, { extra: true }) },
  'a fractional id': { body: { ...call({ name: 'get_manifest' }), id: 1.5 } },
  'a fractional progress token': { body: call({ name: 'get_manifest', _meta: { progressToken: 0.5 } }) },
  'a task-augmented call': { body: call({ name: 'get_manifest', task: { ttl: 1000 } }) },
  'a related task': { body: call({ name: 'get_manifest', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'x' } } }) },
  'params an array': { body: call([]) },
  'a batch of one call': { body: [call({ name: 'get_manifest' })] },
  'a notification': { body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } } },
  'tools/list': { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }
}

t.test('the direct path answers as the SDK does: status, headers and body', async t => {
  let requestNumber = 0
  for (const [what, { body, headers = {} }] of Object.entries(cases)) {
    const sent = { ...JSON_HEADERS, 'x-request-id': `direct-calls-${++requestNumber}`, ...headers }
    const [fromDirect, fromSdk] = [await post(direct, JSON.stringify(body), sent), await post(sdk, JSON.stringify(body), sent)]
    t.same(blankInstants(fromDirect), blankInstants(fromSdk), what)
  }
})

t.test('the cases meant for the direct path meet its rule, the others do not', async t => {
  const { directToolCall } = await import('../../../lib/doors/mcp/direct-tool-call.js')
  for (const [what, { body, headers = {}, answered }] of Object.entries(cases)) {
    const taken = directToolCall(body, { ...JSON_HEADERS, ...headers }) !== undefined
    t.equal(taken, answered === 'directly', what)
  }
})

t.test('a client that leaves before the answer: nothing is written, the next call is answered', async t => {
  for (const baseUrl of [direct, sdk]) {
    await new Promise<void>(resolve => {
      const req = httpRequest(`${baseUrl}/mcp`, { method: 'POST', headers: JSON_HEADERS })
      req.on('error', () => resolve())
      req.end(JSON.stringify(call({ name: 'fetch_price', arguments: { token: 'SOL' } })), () => { req.destroy(); resolve() })
    })
    const next = await post(baseUrl, JSON.stringify(call({ name: 'get_manifest' })), JSON_HEADERS)
    t.equal(next.status, 200, baseUrl === direct ? 'direct' : 'sdk')
    t.match(JSON.parse(next.body), { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text' }] } })
  }
})
