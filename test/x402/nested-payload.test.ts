import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import t from 'tap'
import { connectMcp } from '../fixtures/mcp-client.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { paymentRequiredOf, v2Header } from '../fixtures/x402-payment.js'

const PATH = '/api/fetch-price/SOL'
// The review's figure: 1.7 s per request on the old matcher; a bounded payload is refused in well under this.
const MAX_MS_PER_REQUEST = 150

/** `depth` arrays nested inside each other: `[[[...]]]`, about 2 bytes a level. */
function nested (depth: number): unknown {
  let value: unknown = []
  for (let i = 1; i < depth; i++) value = [value]
  return value
}

t.test('a deeply nested accepted is refused at once, unpaid, on HTTP and MCP', async (t) => {
  const m = await startX402Merchant(t)
  const required = paymentRequiredOf((await fetch(`${m.url}${PATH}`)).headers)
  const accepted = { ...required.accepts[0], nest: nested(2_000) }
  // A transaction is never reached: the shape is refused first.
  const header = v2Header('AQ==', accepted, required.resource)
  t.ok(header.length > 5_000 && header.length < 12_288, `a ${header.length}-character header, under the header cap`)

  const started = performance.now()
  const res = await fetch(`${m.url}${PATH}`, { headers: { 'payment-signature': header } })
  const elapsed = performance.now() - started
  const body = await res.json() as { code: string, message: string }
  t.equal(res.status, 402)
  t.equal(body.code, 'X402_INVALID_PAYLOAD', body.message)
  t.ok(elapsed < MAX_MS_PER_REQUEST, `HTTP answered in ${elapsed.toFixed(1)} ms`)

  const client = await connectMcp(t, m.url)
  const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as unknown
  // A first, unpaid call opens the session, so the timing below is the payload's alone.
  await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } })
  const mcpStarted = performance.now()
  const result = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' }, _meta: { 'x402/payment': payload } }) as CallToolResult
  const mcpElapsed = performance.now() - mcpStarted
  t.equal(result.isError, true)
  t.equal((result.structuredContent as { code?: string }).code, 'X402_INVALID_PAYLOAD')
  t.ok(mcpElapsed < MAX_MS_PER_REQUEST, `MCP answered in ${mcpElapsed.toFixed(1)} ms`)
})

t.test('an accepted that is the offer with extra keys or non-scalar values is not the offer', async (t) => {
  const m = await startX402Merchant(t)
  const required = paymentRequiredOf((await fetch(`${m.url}${PATH}`)).headers)
  const offer = required.accepts[0] as Record<string, unknown> & { extra: Record<string, unknown> }
  const cases: Array<[string, Record<string, unknown>]> = [
    ['an amount given as an array', { ...offer, amount: [offer.amount] }],
    ['an extra whose feePayer is an object', { ...offer, extra: { ...offer.extra, feePayer: { value: offer.extra.feePayer } } }],
    ['an extra holding a nested object', { ...offer, extra: { ...offer.extra, more: { a: 1 } } }],
    ['an unknown top-level key', { ...offer, other: 'x' }]
  ]
  for (const [name, accepted] of cases) {
    const res = await fetch(`${m.url}${PATH}`, { headers: { 'payment-signature': v2Header('AQ==', accepted, required.resource) } })
    const body = await res.json() as { code: string }
    t.equal(res.status, 402, `${name}: 402`)
    t.equal(body.code, 'X402_REQUIREMENTS_MISMATCH', `${name}: not the offer`)
  }
})
