import { request as httpRequest } from 'node:http'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { build } from '../../helper.js'
import { connectMcp, listen } from '../../fixtures/mcp-client.js'
import { toolsListBudget } from '../../fixtures/tools-list-budget.js'

// One defect of issue #31 per case: each answered as JSON-RPC 2.0 and MCP specify.
const priceApi = await startPriceApi()
t.teardown(() => priceApi.stop())
const METRICS_TOKEN = 'a-metrics-token-of-some-length'
const app = await build(t, { PRICE_API_URL: priceApi.url, METRICS_ENABLED: 'true', METRICS_TOKEN, PAYMENT_ADDRESS: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx' })
const url = await listen(app)

async function post (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(`${url}/mcp`, { method: 'POST', headers: { accept: 'application/json, text/event-stream', ...headers }, body })
  return { status: res.status, body: await res.json() as Record<string, any> }
}

/** A POST through node:http, which sends the headers as given (fetch sets its own Content-Type and Host). */
async function rawPost (body: string, headers: Record<string, string>): Promise<{ status?: number, body: Record<string, any> }> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/mcp`, { method: 'POST', headers: { accept: 'application/json, text/event-stream', ...headers } }, res => {
      let text = ''
      res.setEncoding('utf8').on('data', chunk => { text += chunk }).on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }))
    })
    req.on('error', reject).end(body)
  })
}

const rpcError = (code: number, message: RegExp) => ({ jsonrpc: '2.0', id: null, error: { code, message } })

t.test('a malformed tools/call is -32602 Invalid params, with no validation dump', async t => {
  const calls = {
    'no params': { jsonrpc: '2.0', id: 1, method: 'tools/call' },
    'no name': { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: {} } },
    'arguments an array': { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_manifest', arguments: [] } },
    'arguments a string': { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_manifest', arguments: 'x' } }
  }
  for (const [what, call] of Object.entries(calls)) {
    const { status, body } = await post(JSON.stringify(call))
    t.equal(status, 200, what)
    t.match(body, { jsonrpc: '2.0', id: call.id, error: { code: -32602, message: /^Invalid params: / } }, what)
    t.notMatch(body.error.message, /invalid_type|expected|\n/, `${what}: a sentence, not a zod dump`)
  }
})

t.test('bodies that are not JSON-RPC: -32700 for bad JSON, -32600 for the rest, never the REST error body', async t => {
  t.match(await post('{"jsonrpc": "2.0", "id": '), { status: 400, body: rpcError(-32700, /^Parse error/) })
  t.match(await post('{}'), { status: 400, body: rpcError(-32600, /^Invalid Request: jsonrpc must be "2\.0"/) })
  t.match(await post('{"jsonrpc":"1.0","id":1,"method":"tools/list"}'), { status: 400, body: rpcError(-32600, /jsonrpc must be "2\.0"/) })
  t.match(await post('[]'), { status: 400, body: rpcError(-32600, /an empty batch/) }, 'JSON-RPC 2.0: an empty batch is an invalid request')
  t.match(await post('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}, 5]'), { status: 400, body: rpcError(-32600, /in a batch/) })
  t.match(await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'content-type': 'text/plain' }), { status: 415, body: rpcError(-32600, /Content-Type must be application\/json/) })

  t.match(await rawPost('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {}), { status: 415, body: rpcError(-32600, /Content-Type must be application\/json/) }, 'no Content-Type at all')
})

t.test('initialize: tools.listChanged is false (the list never changes, and a stateless server could not say so)', async t => {
  const client = await connectMcp(t, url)
  t.same(client.getServerCapabilities()?.tools, { listChanged: false })
})

t.test('an unknown tool: -32602 with its message once, not prefixed twice', async t => {
  const { body } = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }))
  t.same(body, { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Unknown tool "no_such_tool"' } })
  const method = await post(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'resources/list' }))
  t.match(method.body, { id: 8, error: { code: -32601, message: 'Method not found' } }, 'an unknown method stays -32601')
})

t.test('tools/list: under its size budget (6 KB a product), descriptions for a model, output schemas the SDK client checks every answer against', async t => {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  })
  const text = await res.text()
  t.ok(text.length < toolsListBudget(), `tools/list is ${text.length} bytes, under ${toolsListBudget()}`)
  const { tools } = (JSON.parse(text) as { result: { tools: Array<{ name: string, description: string, outputSchema: Record<string, any> }> } }).result
  for (const tool of tools) {
    t.notMatch(tool.description, /GET |\/api\/|\/\.well-known|params\._meta/, `${tool.name}: no HTTP paths, nothing a model cannot do`)
    t.match(tool.outputSchema.description, /^[^;]*\. With isError: the error body/, `${tool.name}: one sentence each`)
  }
  t.match(tools.find(tool => tool.name === 'fetch_price')?.outputSchema.anyOf[0].description, `Full schema: ${url}/openapi.json#/components/schemas/PriceResponse`)

  // The SDK client validates structuredContent against outputSchema: a document, an error and a PaymentRequired all pass.
  const client = await connectMcp(t, url)
  await client.listTools()
  const document = await client.callTool({ name: 'get_reputation', arguments: {} }) as CallToolResult
  t.notOk(document.isError)
  const failed = await client.callTool({ name: 'list_registry', arguments: { wallet: 'nope' } }) as CallToolResult
  t.match(failed, { isError: true, structuredContent: { code: 'VALIDATION_ERROR' } })
  const unpaid = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
  t.match(unpaid, { isError: true, structuredContent: { x402Version: 2, accepts: Array } })
})

t.test('an unknown vs names vs, not token', async t => {
  const client = await connectMcp(t, url)
  const result = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL', vs: 'NOSUCHTOKEN' } }) as CallToolResult
  t.match(result, { isError: true, structuredContent: { code: 'TOKEN_NOT_FOUND', message: /^vs: No token is known as "NOSUCHTOKEN"/, vs: 'NOSUCHTOKEN' } })
  t.notOk('token' in (result.structuredContent ?? {}), 'the token argument was fine')
  const http = await (await fetch(`${url}/api/fetch-price/SOL?vs=NOSUCHTOKEN`)).json()
  t.match(http, { code: 'TOKEN_NOT_FOUND', vs: 'NOSUCHTOKEN' }, 'the HTTP route too')
})

t.test('concurrent requests on pooled servers each get their own answer', async t => {
  const answers = await Promise.all(Array.from({ length: 12 }, async (_, i) => await post(JSON.stringify(i % 2 === 0
    ? { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_reputation', arguments: { window: '7d' } } }
    : { jsonrpc: '2.0', id: i, method: 'tools/list' }))))
  answers.forEach(({ body }, i) => t.match(body, i % 2 === 0 ? { id: i, result: { structuredContent: { window: '7d' } } } : { id: i, result: { tools: Array } }, `request ${i}`))
  t.match(await rawPost(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'get_manifest', arguments: {} } }), { 'content-type': 'application/json', host: 'other.example' }),
    { body: { id: 99, result: { structuredContent: { mcp_url: 'http://other.example/mcp' } } } }, 'a reused server serves the new request\'s host')
})

t.test('MCP requests are counted in the request metrics like other routes', async t => {
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  t.match(res.body, /^http_requests_total\{route="\/mcp",method="POST",status="200"\} \d+$/m)
  t.match(res.body, /^http_requests_total\{route="\/mcp",method="POST",status="400"\} \d+$/m)
  t.match(res.body, /^http_request_duration_seconds_count\{route="\/mcp",method="POST",status="200"\} \d+$/m)
})
