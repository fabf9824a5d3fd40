import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import t from 'tap'
import { formatTokenAmount } from '../../lib/payment/catalog.js'
import { connectMcp, listen } from '../fixtures/mcp-client.js'
import { build } from '../helper.js'

// One source for the terms: every reader of the merchant sees the same price, asset, network and
// payTo for each product: the 402 (v2 header and v1 body), the MCP PaymentRequired, the bazaar
// extension, x-payment-info, /.well-known/x402, /llms.txt and the manifest.

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const decode = (header: unknown) => JSON.parse(Buffer.from(String(header), 'base64').toString('utf8'))

interface Terms { amount: string, asset: string, network: string, payTo: string }

t.test('price, asset, network and payTo are the same in every document that states them', async t => {
  const app = await build(t)
  const manifest = (await app.inject('/.well-known/agent.json')).json()
  const document = (await app.inject('/openapi.json')).json()
  const wellKnown = (await app.inject('/.well-known/x402')).json()
  const llms = (await app.inject('/llms.txt')).body
  const client = await connectMcp(t, await listen(app))
  const v2Network = decode((await app.inject(`/api/analyze-token/${USDC}`)).headers['payment-required']).accepts[0].network as string

  for (const service of manifest.services as Array<{ name: string, endpoint: string, price: number, price_display: string, payment_network: string, mcp_tool: string }>) {
    const expected: Terms = { amount: String(service.price), asset: manifest.payment_mint, network: v2Network, payTo: manifest.payment_address }
    t.equal(service.price_display, formatTokenAmount(BigInt(service.price)), `${service.name}: the manifest's two prices agree`)
    const resource = (wellKnown.resources as string[]).find(url => new URL(url).pathname.startsWith(service.endpoint.split(':')[0]))
    t.ok(resource, `${service.name}: /.well-known/x402 lists it`)
    const url = new URL(resource as string).pathname

    const answer = await app.inject(url)
    const v2 = decode(answer.headers['payment-required'])
    const pick = (terms: Terms) => ({ amount: terms.amount, asset: terms.asset, network: terms.network, payTo: terms.payTo })
    t.same(pick(v2.accepts[0]), expected, `${service.name}: the 402's PAYMENT-REQUIRED (v2)`)
    const v1 = answer.json().accepts[0]
    t.same({ amount: v1.maxAmountRequired, asset: v1.asset, network: v1.network, payTo: v1.payTo },
      { ...expected, network: service.payment_network }, `${service.name}: the 402's body (v1, its network name as the manifest's)`)
    t.equal(v1.extra.amount, service.price_display, `${service.name}: the v1 body's price in token units`)
    t.equal(v2.extensions.bazaar.routeTemplate, service.endpoint, `${service.name}: the bazaar route template is the manifest's endpoint`)

    const tool = await client.callTool({ name: service.mcp_tool, arguments: service.name === 'fetch-price' ? { token: USDC } : { address: USDC } }) as CallToolResult
    const mcp = tool.structuredContent as { accepts: Terms[], extensions: { bazaar: { info: { input: { toolName: string } } } } }
    t.same(pick(mcp.accepts[0]), expected, `${service.name}: the MCP PaymentRequired`)
    t.equal(mcp.extensions.bazaar.info.input.toolName, service.mcp_tool, `${service.name}: the MCP bazaar names the manifest's tool`)

    const path = service.endpoint.replace(/:(\w+)/g, '{$1}')
    const info = document.paths[path].get['x-payment-info']
    t.same(info.price, { mode: 'fixed', currency: 'USD', amount: service.price_display }, `${service.name}: x-payment-info's price`)
    t.same(pick(info.protocols[0].x402), expected, `${service.name}: x-payment-info's x402 terms`)

    t.ok(llms.includes(`${service.price_display} ${manifest.services[0].payment_token} (${service.price} base units)`), `${service.name}: /llms.txt states the price`)
  }
  for (const value of [manifest.payment_mint, manifest.payment_address, v2Network]) t.ok(llms.includes(value), `/llms.txt names ${value}`)
})
