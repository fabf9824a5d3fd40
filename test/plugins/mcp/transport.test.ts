import t from 'tap'
import { build } from '../../helper.js'
import { listen } from '../../fixtures/mcp-client.js'

const ACCEPT = 'application/json, text/event-stream'
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
}

async function post (url: string, body: unknown, headers: Record<string, string> = {}) {
  return await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
}

t.test('POST /mcp: stateless JSON answers with the fixed headers and a request id', async t => {
  const url = await listen(await build(t))
  const res = await post(url, initialize, { 'x-request-id': 'mcp-test-1' })
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^application\/json/)
  t.match(res.headers.get('mcp-session-id'), /^[\w-]{32}$/, 'a session id naming this client\'s calls for its cancel notices (no session state is kept)')
  t.equal(res.headers.get('x-request-id'), 'mcp-test-1')
  t.equal(res.headers.get('x-content-type-options'), 'nosniff')
  const body = await res.json()
  t.match(body, { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'token-merchant' }, capabilities: { tools: { listChanged: false } } } })
})

t.test('GET and DELETE /mcp: 405 in the common error shape (no stream, no session)', async t => {
  const url = await listen(await build(t))
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(`${url}/mcp`, { method, headers: { accept: 'text/event-stream' } })
    t.equal(res.status, 405, method)
    t.equal(res.headers.get('allow'), 'POST, OPTIONS')
    t.match(await res.json(), { statusCode: 405, code: 'METHOD_NOT_ALLOWED', requestId: String })
  }
})

t.test('a body MCP cannot read is answered in JSON-RPC; one too large keeps the common error shape', async t => {
  const url = await listen(await build(t))
  const garbled = await post(url, '{"jsonrpc": "2.0", "id": ')
  t.equal(garbled.status, 400)
  t.match(await garbled.json(), { jsonrpc: '2.0', id: null, error: { code: -32700 } })
  const text = await post(url, 'hello', { 'content-type': 'text/plain' })
  t.equal(text.status, 415)
  t.match(await text.json(), { jsonrpc: '2.0', error: { code: -32600, message: /Content-Type must be application\/json/ } })
  const big = await post(url, { ...initialize, padding: 'x'.repeat(20_000) })
  t.equal(big.status, 413)
  t.match(await big.json(), { code: 'PAYLOAD_TOO_LARGE' })
})

t.test('Origin: refused unless absent, loopback, PUBLIC_BASE_URL\'s or listed (DNS rebinding)', async t => {
  const url = await listen(await build(t, { PUBLIC_BASE_URL: 'https://merchant.example', MCP_ALLOWED_ORIGINS: 'https://agents.example,http://10.0.0.5:8080' }))
  const evil = await post(url, initialize, { origin: 'http://evil.example' })
  t.equal(evil.status, 403)
  t.match(await evil.json(), { statusCode: 403, code: 'FORBIDDEN', requestId: String })
  // A rebinding page names itself in both Origin and Host: still refused.
  const rebound = await post(url, initialize, { origin: 'http://evil.example', host: 'evil.example' })
  t.equal(rebound.status, 403)
  for (const origin of ['https://merchant.example', 'https://agents.example', 'http://10.0.0.5:8080', 'http://localhost:5173', 'http://127.0.0.1:3000']) {
    t.equal((await post(url, initialize, { origin })).status, 200, origin)
  }
  t.equal((await post(url, initialize)).status, 200, 'no Origin: not a browser')
  const preflight = await fetch(`${url}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://agents.example', 'access-control-request-method': 'POST' } })
  t.equal(preflight.status, 204)
  t.match(preflight.headers.get('access-control-allow-methods'), /POST/)
  t.match(preflight.headers.get('access-control-allow-headers'), /mcp-protocol-version/)
  const evilPreflight = await fetch(`${url}/mcp`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } })
  t.equal(evilPreflight.status, 403)
  t.equal((await fetch(`${url}/mcp`, { headers: { origin: 'http://evil.example' } })).status, 403, 'GET too')

  const open = await listen(await build(t, { MCP_ALLOWED_ORIGINS: '*' }))
  t.equal((await post(open, initialize, { origin: 'http://evil.example' })).status, 200, '* allows any origin')
})

t.test('MCP_ALLOWED_ORIGINS is checked at start-up', async t => {
  await t.rejects(build(t, { MCP_ALLOWED_ORIGINS: 'https://a.example/path' }), /MCP_ALLOWED_ORIGINS/)
  await t.rejects(build(t, { MCP_ALLOWED_ORIGINS: 'ftp://a.example' }), /MCP_ALLOWED_ORIGINS/)
})

t.test('the rate limit counts MCP calls like any request', async t => {
  const url = await listen(await build(t, { RATE_LIMIT_MAX: '2' }))
  t.equal((await post(url, initialize)).status, 200)
  t.equal((await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status, 200)
  const limited = await post(url, { jsonrpc: '2.0', id: 9, method: 'tools/list' })
  t.equal(limited.status, 429)
  t.ok(limited.headers.get('retry-after'))
  t.match(await limited.json(), { statusCode: 429, code: 'RATE_LIMITED' })
})

t.test('each tool call of a JSON-RPC batch counts toward the rate limit', async t => {
  const url = await listen(await build(t, { RATE_LIMIT_MAX: '4' }))
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_manifest', arguments: {} } })
  const pair = await post(url, [call(1), call(2)])
  t.equal(pair.status, 200, 'two calls in one POST: two of the four')
  t.equal((await pair.json() as unknown[]).length, 2)
  const batch = await post(url, [call(3), call(4), call(5)])
  t.equal(batch.status, 429, 'three more do not fit')
  t.ok(batch.headers.get('retry-after'))
  t.match(await batch.json(), { statusCode: 429, code: 'RATE_LIMITED', message: /each tool call or cancel notice of a batch counts/ })
})

t.test('each MCP request is logged on completion with its request id, as Fastify logs the others', async t => {
  const lines: Array<Record<string, any>> = []
  const stream = { write: (line: string) => { lines.push(JSON.parse(line)) } }
  const url = await listen(await build(t, { LOG_LEVEL: 'info' }, undefined, stream))
  await (await post(url, initialize, { 'x-request-id': 'mcp-log-1' })).text()
  await new Promise(resolve => setImmediate(resolve))
  const completed = lines.filter(line => line.reqId === 'mcp-log-1' && line.msg === 'request completed')
  t.equal(completed.length, 1, 'one line, as for any request')
  t.match(completed[0], { res: { statusCode: 200 }, responseTime: Number })
})
