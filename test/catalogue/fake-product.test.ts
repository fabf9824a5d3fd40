import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Type } from '@sinclair/typebox'
import type { PaymentRequired } from '@x402/core/types'
import t from 'tap'
import { CATALOGUE, createCatalogue } from '../../lib/catalogue/catalogue.js'
import type { Product } from '../../lib/catalogue/product.js'
import { paidRequestPhases } from '../../lib/ops/shutdown-grace.js'
import { MintToAnalyze } from '../../schemas/token-analysis.js'
import { ConfigError } from '../../config.js'
import { build } from '../helper.js'
import { a2aBuyer, payloadFor, x402Of } from '../fixtures/a2a-client.js'
import { connectMcp } from '../fixtures/mcp-client.js'
import { proofHeaders } from '../fixtures/paid-chain.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'

/**
 * A third product is one catalogue entry (with its service and schema): added here in a few lines,
 * through the code path the merchant's own products take, it is sold and described on every door
 * and document.
 */

// The product's trivial service and schema.
const holders = { count: async (mint: string) => ({ mint, holders: mint.length }) }
const HolderCount = Type.Object({ mint: Type.String(), holders: Type.Integer({ minimum: 0 }) }, { $id: 'TestHolderCount', additionalProperties: false, description: 'How many wallets hold a token.' })

// Its entry.
const TOKEN_HOLDERS: Product = {
  name: 'test-holder-count',
  method: 'GET',
  path: '/api/test-holder-count/:address',
  price: 20_000n,
  description: 'How many wallets hold a token mint.',
  params: Type.Object({ address: MintToAnalyze }),
  output: HolderCount,
  example: { params: { address: 'So11111111111111111111111111111111111111112' }, output: { mint: 'So11111111111111111111111111111111111111112', holders: 43 } },
  tool: { name: 'test_holder_count', title: 'Test holder count', summary: 'How many wallets hold a Solana token mint.' },
  operation: { id: 'tokenHolders', summary: network => `Holders of a token mint (${network})`, description: () => 'Counts the wallets holding the mint.', delivered: 'the holder count, paid for', errors: ['VALIDATION_ERROR', 'PAYMENT_IN_PROGRESS', 'STORE_UNAVAILABLE'] },
  handlerBudgetMs: () => 0,
  run: async (_services, input) => await holders.count(String(input.address))
}

const PRICE = 20_000n
const MINT = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'
const catalogue = createCatalogue([...CATALOGUE.products, TOKEN_HOLDERS])
const m = await startX402Merchant(t, {}, undefined, catalogue)
const decode = (header: unknown) => JSON.parse(Buffer.from(String(header), 'base64').toString('utf8'))

t.test('HTTP: the 402 asks its price, with its bazaar extension, and a proof buys the document', async t => {
  const challenge = await m.app.inject(`/api/test-holder-count/${MINT}`)
  t.equal(challenge.statusCode, 402)
  t.equal(challenge.json().accepts[0].maxAmountRequired, PRICE.toString(), 'v1 body')
  const required = decode(challenge.headers['payment-required'])
  t.equal(required.accepts[0].amount, PRICE.toString(), 'v2 header')
  t.match(required.extensions.bazaar.info.input, { pathParams: { address: MINT } })
  t.equal(required.extensions.bazaar.routeTemplate, '/api/test-holder-count/:address')

  t.equal((await m.app.inject('/api/test-holder-count/not-a-mint')).statusCode, 400, 'its parameters are validated before payment')

  const buyer = await m.paid.newBuyer(1_000_000n)
  const before = await m.merchantBalance()
  const signature = await m.paid.pay(buyer, PRICE)
  const paid = await m.app.inject({ url: `/api/test-holder-count/${MINT}`, headers: proofHeaders(signature, buyer.address) })
  t.equal(paid.statusCode, 200)
  t.same(paid.json(), { mint: MINT, holders: MINT.length })
  t.ok(paid.headers['x-payment-response'], 'with the receipt')
  t.equal(await m.merchantBalance() - before, PRICE, 'the merchant holds the price, read on chain')
})

t.test('MCP: listed as a paid tool, and an x402 payload buys it', async t => {
  const client = await connectMcp(t, m.url)
  const { tools } = await client.listTools()
  const tool = tools.find(entry => entry.name === 'test_holder_count')
  t.match(tool, { title: 'Test holder count', inputSchema: { required: ['address'] } })
  t.match(tool?.description, /Costs 0\.02 USDC \(20000 base units\) per call/)
  t.match(client.getInstructions(), /fetch_price, analyze_token and test_holder_count are paid/)

  const unpaid = await client.callTool({ name: 'test_holder_count', arguments: { address: MINT } }) as CallToolResult
  t.equal(unpaid.isError, true)
  const required = unpaid.structuredContent as unknown as PaymentRequired
  t.match(required, { resource: { url: 'mcp://tool/test_holder_count' }, accepts: [{ amount: PRICE.toString() }] })
  t.equal((required.extensions?.bazaar as { info: { input: { toolName: string } } }).info.input.toolName, 'test_holder_count')

  const buyer = await m.paid.newBuyer(1_000_000n)
  const before = await m.merchantBalance()
  const payload = await payloadFor(buyer, required, m.paid.chain.url)
  const result = await client.callTool({ name: 'test_holder_count', arguments: { address: MINT }, _meta: { 'x402/payment': payload } }) as CallToolResult
  t.notOk(result.isError)
  t.same(result.structuredContent, { mint: MINT, holders: MINT.length })
  t.equal(await m.merchantBalance() - before, PRICE, 'settled on chain')
})

t.test('A2A: a skill of the agent card, asking its price', async t => {
  const buyer = await a2aBuyer(m.url)
  const card = await buyer.client.getAgentCard()
  const skill = card.skills.find(entry => entry.id === 'test-holder-count')
  t.match(skill, { name: 'Test holder count' })
  t.match(skill?.description, /Costs 0\.02 USDC \(20000 base units\) per task/)
  const task = await buyer.start({ skill: 'test-holder-count', address: MINT })
  t.match(x402Of(task)['x402.payment.required'], { accepts: [{ amount: PRICE.toString() }] })
})

t.test('OpenAPI: a paid operation at its path, with its errors and payment info', async t => {
  const document = (await m.app.inject('/openapi.json')).json()
  const operation = document.paths['/api/test-holder-count/{address}'].get
  t.equal(operation.operationId, 'tokenHolders')
  t.match(operation['x-payment-info'], { protocols: [{ x402: { amount: PRICE.toString() } }] })
  t.ok(operation.responses['402'], 'the 402')
  t.ok(document.components.schemas.TokenHoldersError409, 'its named error models')
  t.ok(document.components.schemas.TestHolderCount, 'its document model')
  t.match(document.paths['/mcp'].post.summary, /test_holder_count/)
})

t.test('discovery: the manifest, /.well-known/x402 and llms.txt list it', async t => {
  const manifest = (await m.app.inject('/.well-known/agent.json')).json()
  t.match(manifest.services.find((service: { name: string }) => service.name === 'test-holder-count'),
    { endpoint: '/api/test-holder-count/:address', method: 'GET', price: 20000, price_display: '0.02', mcp_tool: 'test_holder_count' })
  const wellKnown = (await m.app.inject('/.well-known/x402')).json()
  t.ok(wellKnown.resources.some((url: string) => url.endsWith('/api/test-holder-count/So11111111111111111111111111111111111111112')), 'its example resource')
  const llms = (await m.app.inject('/llms.txt')).body
  t.match(llms, /- \[test-holder-count\]\(.*\/api\/test-holder-count\/So1+2\): `GET \/api\/test-holder-count\/\{address\}`, 0\.02 USDC \(20000 base units\) per call; MCP tool `test_holder_count`/)
})

t.test('the shutdown budget counts its handler', async t => {
  const timeouts = { rpcTimeoutMs: 1000, notFoundWaitMs: 0, upstreamTimeoutMs: 1000, dataRpcTimeoutMs: 1000, settlementTimeoutMs: 1000 }
  const slow = { ...TOKEN_HOLDERS, handlerBudgetMs: () => 60_000 }
  t.equal(paidRequestPhases(timeouts, catalogue.products).find(phase => phase.name === 'handler')?.ms, 3000, 'the slowest of the three')
  t.equal(paidRequestPhases(timeouts, [...CATALOGUE.products, slow]).find(phase => phase.name === 'handler')?.ms, 60_000)
})

t.test('an app refuses a close grace and a lease its own products outlast', async t => {
  const slow = createCatalogue([...CATALOGUE.products, { ...TOKEN_HOLDERS, handlerBudgetMs: () => 60_000 }])
  // The defaults fit the built-in products (verification 10 s + handler 20 s + settlement 40 s), not one of 60 s.
  const refused = await build(t, {}, undefined, undefined, slow).then(() => undefined, (error: unknown) => error)
  t.ok(refused instanceof ConfigError, 'a configuration error, before anything listens')
  t.match((refused as ConfigError).message, /CLOSE_GRACE_MS: the close grace, 71000 ms, is shorter than the longest paid request of the products sold, 110000 ms \(verification 10000 \+ handler 60000 \+ settlement 40000\)/)
  t.match((refused as ConfigError).message, /PAYMENT_LEASE_SECONDS: \d+ s is shorter than a paid request holds its payment, 100000 ms \(handler 60000 \+ settlement 40000\)/)
  const app = await build(t, { CLOSE_GRACE_MS: '110000', PAYMENT_LEASE_SECONDS: '100' }, undefined, undefined, slow)
  t.ok((await app.inject('/.well-known/agent.json')).json().services.some((service: { name: string }) => service.name === 'test-holder-count'), 'with both raised it starts and sells it')
})
