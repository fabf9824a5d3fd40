import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { PaymentRequired } from '@x402/core/types'
import t, { type Test } from 'tap'
import { a2aBuyer, x402Of } from '../fixtures/a2a-client.js'
import { connectMcp, listen } from '../fixtures/mcp-client.js'
import { build } from '../helper.js'

// extensions.refund wherever the requirements are published, read through the real doors (the
// official MCP SDK client, @a2a-js/sdk's client): with REFUNDS on, the same object as the HTTP
// 402's PAYMENT-REQUIRED everywhere; off, nowhere.
const WINDOW_SECONDS = 7200
const SOL = 'So11111111111111111111111111111111111111112'
const decode = (header: string | null) => JSON.parse(Buffer.from(String(header), 'base64').toString('utf8')) as PaymentRequired

/** Every published copy of the refund extension, keyed by where it was read. */
async function refundExtensions (base: string, t: Test): Promise<Record<string, unknown>> {
  const found: Record<string, unknown> = {}
  const extensions = (required: PaymentRequired) => (required.extensions as Record<string, unknown> | undefined)?.refund

  const http = await fetch(`${base}/api/fetch-price/SOL`)
  t.equal(http.status, 402)
  found['HTTP PAYMENT-REQUIRED'] = extensions(decode(http.headers.get('payment-required')))

  const mcp = await connectMcp(t, base)
  for (const [tool, args] of [['fetch_price', { token: 'SOL' }], ['analyze_token', { address: SOL }]] as const) {
    const result = await mcp.callTool({ name: tool, arguments: args }) as CallToolResult
    t.equal(result.isError, true, `${tool}: unpaid, the PaymentRequired`)
    found[`MCP ${tool}`] = extensions(result.structuredContent as unknown as PaymentRequired)
  }

  const a2a = await a2aBuyer(base)
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  found['A2A payment-required task'] = extensions(x402Of(task)['x402.payment.required'] as PaymentRequired)
  // GetTask rebuilds the task from its id: the same terms.
  found['A2A GetTask'] = extensions(x402Of(await a2a.getTask(task.id))['x402.payment.required'] as PaymentRequired)

  const document = await (await fetch(`${base}/openapi.json`)).json() as { paths: Record<string, Record<string, { 'x-payment-info'?: { protocols: Array<{ x402: { extensions?: { refund?: unknown } } }> } }>> }
  for (const [path, item] of Object.entries(document.paths)) {
    const info = item.get?.['x-payment-info']
    if (info !== undefined) found[`x-payment-info ${path}`] = info.protocols[0].x402.extensions?.refund
  }
  found.manifest = (await (await fetch(`${base}/.well-known/agent.json`)).json() as { refund?: unknown }).refund
  return found
}

t.test('REFUNDS=true: every door and discovery document carries the HTTP 402\'s extensions.refund', async t => {
  const app = await build(t, { REFUNDS: 'true', REFUND_WINDOW_SECONDS: String(WINDOW_SECONDS) })
  const found = await refundExtensions(await listen(app), t)
  const http = found['HTTP PAYMENT-REQUIRED']
  t.same(http, { info: { refundEndpoint: `http://localhost:${app.config.PORT}/api/refunds`, windowSeconds: WINDOW_SECONDS, partialRefunds: false } })
  t.equal(Object.keys(found).length, 8, 'HTTP, two MCP tools, two A2A answers, two paid operations, the manifest')
  for (const [where, refund] of Object.entries(found)) t.same(refund, http, `${where}: the same extensions.refund`)
  const manifest = await app.inject('/.well-known/agent.json')
  t.equal(manifest.statusCode, 200, 'the manifest validates against its schema with it')
})

t.test('REFUNDS off (the default): no extensions.refund anywhere', async t => {
  const app = await build(t)
  const found = await refundExtensions(await listen(app), t)
  t.equal(Object.keys(found).length, 8)
  for (const [where, refund] of Object.entries(found)) t.equal(refund, undefined, `${where}: none`)
})
