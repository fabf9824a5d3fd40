import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { generateKeyPairSigner } from '@solana/kit'
import t, { type Test } from 'tap'
import { startLocalnet } from '@token-merchant/localnet'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { registerAgent } from '../../../client/register.js'
import { CATALOGUE } from '../../../lib/catalogue/catalogue.js'
import { toolsOf } from '../../../lib/tools/tool-catalog.js'
import { Manifest, ManifestService } from '../../../schemas/manifest.js'
import { build } from '../../helper.js'
import { connectMcp, listen } from '../../fixtures/mcp-client.js'

FormatRegistry.Set('uri', value => URL.canParse(value))
FormatRegistry.Set('date-time', value => !Number.isNaN(Date.parse(value)))

const net = await startLocalnet()
t.teardown(() => net.stop())
const priceApi = await startPriceApi()
t.teardown(() => priceApi.stop())
const registryAddress = (await generateKeyPairSigner()).address
const agent = await net.createWallet()
await registerAgent({ rpc: net.rpc, signer: agent, registryAddress, name: 'alpha', manifestUrl: 'https://alpha.example/agent.json', pollIntervalMs: 20 })

async function merchant (t: Test, env: Record<string, string> = {}) {
  const app = await build(t, { SOLANA_RPC_URL: net.url, PRICE_API_URL: priceApi.url, REGISTRY_ADDRESS: registryAddress, ...env })
  return { app, url: await listen(app) }
}

function structured (result: CallToolResult) {
  return result.structuredContent as Record<string, any>
}

t.test('tools/list: five tools, their schemas from the routes\' models, prices in the descriptions', async t => {
  const { url } = await merchant(t)
  const client = await connectMcp(t, url)
  t.equal(client.getServerVersion()?.name, 'token-merchant')
  const { tools } = await client.listTools()
  t.same(tools.map(tool => tool.name), ['fetch_price', 'analyze_token', 'get_manifest', 'get_reputation', 'list_registry'])
  const byName = new Map(tools.map(tool => [tool.name, tool]))

  t.match(byName.get('fetch_price')?.description, /Costs 0\.05 USDC \(50000 base units\) per call, paid through x402/)
  t.match(byName.get('analyze_token')?.description, /Costs 0\.1 USDC \(100000 base units\)/)
  for (const name of ['get_manifest', 'get_reputation', 'list_registry']) t.match(byName.get(name)?.description, /Free\.$/, `${name} is free`)

  const price = byName.get('fetch_price')!
  t.same(price.inputSchema.required, ['token'])
  t.match(price.inputSchema.properties, { token: { type: 'string', pattern: toolsOf(CATALOGUE).fetch_price.input.properties.token.pattern }, vs: { type: 'string' } })
  t.equal(price.inputSchema.additionalProperties, false)
  t.same(byName.get('analyze_token')!.inputSchema.required, ['address'])
  t.same(Object.keys(byName.get('list_registry')!.inputSchema.properties ?? {}), ['wallet', 'name'])
  t.same((byName.get('get_reputation')!.inputSchema.properties as any).window.anyOf.map((b: { const: string }) => b.const), ['24h', '7d', '30d', 'all'])

  // The output schema is the top level of the route's model (the rest by reference); errors are branches of it.
  const output = price.outputSchema as { type: string, anyOf: Array<Record<string, any>> }
  t.equal(output.type, 'object')
  t.same(output.anyOf[0].required, ['data'])
  t.match(output.anyOf[0].properties.data, { type: 'object' })
  t.match(output.anyOf[0].description, /\/openapi\.json#\/components\/schemas\/PriceResponse$/)
  t.same(output.anyOf[1].required, ['x402Version', 'resource', 'accepts'], 'paid tools: the x402 PaymentRequired')
  t.same(output.anyOf[2].required, ['statusCode', 'error', 'message', 'code', 'requestId'], 'the common error shape')
  t.notMatch(JSON.stringify(tools), /"\$ref"/, 'no reference is left to resolve')
  t.same((byName.get('get_manifest')!.outputSchema as unknown as { anyOf: unknown[] }).anyOf.length, 2, 'free tools: the document or the error')
})

t.test('get_manifest: the manifest document, naming the MCP endpoint and the tool of each service', async t => {
  const { url } = await merchant(t)
  const client = await connectMcp(t, url)
  const result = await client.callTool({ name: 'get_manifest', arguments: {} }) as CallToolResult
  t.notOk(result.isError)
  const manifest = structured(result)
  t.same([...Value.Errors(Manifest, [ManifestService], manifest)].map(e => `${e.path} ${e.message}`), [], 'valid against the Manifest model')
  t.equal(manifest.mcp_url, `${url}/mcp`)
  t.equal(manifest.mcp_bridge, `token-merchant mcp --merchant ${url}`, 'the bridge command for an MCP host')
  t.same(manifest.services.map((s: { mcp_tool: string }) => s.mcp_tool), ['fetch_price', 'analyze_token'])
  t.same(JSON.parse((result.content[0] as { text: string }).text), manifest, 'content[0].text is the same document')
  const http = await (await fetch(`${url}/.well-known/agent.json`)).json()
  t.same(manifest, http, 'the same document as GET /.well-known/agent.json')
})

t.test('get_reputation and list_registry: the documents of GET /reputation and GET /registry', async t => {
  const { url } = await merchant(t)
  const client = await connectMcp(t, url)
  const reputation = structured(await client.callTool({ name: 'get_reputation', arguments: { window: '7d' } }) as CallToolResult)
  t.match(reputation, { window: '7d', transactions: 0, merchant: { name: 'token-merchant' } })
  const all = structured(await client.callTool({ name: 'get_reputation', arguments: {} }) as CallToolResult)
  t.equal(all.window, 'all', 'the route\'s default window')

  const listing = structured(await client.callTool({ name: 'list_registry', arguments: {} }) as CallToolResult)
  t.match(listing, { network: 'localnet', registry_address: registryAddress, total: 1 })
  t.same(listing.agents.map((a: { name: string }) => a.name), ['alpha'])
  const http = await (await fetch(`${url}/registry`)).json()
  t.same(listing, http, 'the same document as GET /registry')
  const none = structured(await client.callTool({ name: 'list_registry', arguments: { name: 'nobody' } }) as CallToolResult)
  t.equal(none.total, 0)
})

t.test('bad arguments and unknown tools: the common error shape with its code, nothing asked to pay', async t => {
  const { url } = await merchant(t)
  const client = await connectMcp(t, url)
  const invalid = await client.callTool({ name: 'list_registry', arguments: { wallet: 'not-an-address' } }) as CallToolResult
  t.equal(invalid.isError, true)
  t.match(structured(invalid), { statusCode: 400, code: 'VALIDATION_ERROR', validation: [{ in: 'arguments', path: 'wallet' }] })
  t.type(structured(invalid).requestId, 'string')

  const extra = await client.callTool({ name: 'get_reputation', arguments: { window: '1y' } }) as CallToolResult
  t.match(structured(extra), { code: 'VALIDATION_ERROR' })

  // Refused before any payment is asked, as the HTTP route does.
  const unknownToken = await client.callTool({ name: 'fetch_price', arguments: { token: 'NOSUCHTOKEN' } }) as CallToolResult
  t.equal(unknownToken.isError, true)
  t.match(structured(unknownToken), { statusCode: 404, code: 'TOKEN_NOT_FOUND' })
  t.notOk('x402Version' in structured(unknownToken), 'no PaymentRequired for a token nobody could price')
  const badMint = await client.callTool({ name: 'analyze_token', arguments: { address: '1111111111111111111111111111111111' } }) as CallToolResult
  t.match(structured(badMint), { statusCode: 400, code: 'VALIDATION_ERROR', validation: [{ path: 'address' }] })

  await t.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), { code: -32602 }, 'an unknown tool is a protocol error')
})

t.test('registry unreachable: list_registry answers the tool error RPC_UNAVAILABLE', async t => {
  const app = await build(t, { REGISTRY_ADDRESS: registryAddress })
  const client = await connectMcp(t, await listen(app))
  const result = await client.callTool({ name: 'list_registry', arguments: {} }) as CallToolResult
  t.equal(result.isError, true)
  t.match(structured(result), { statusCode: 503, code: 'RPC_UNAVAILABLE' })
})
