import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import {
  extractDiscoveryInfo,
  isValidRouteTemplate,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension
} from '@x402/extensions/bazaar'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import t, { type Test } from 'tap'
import { CATALOGUE } from '../../lib/catalogue/catalogue.js'
import { MODELS } from '../../schemas/index.js'
import { connectMcp, listen } from '../fixtures/mcp-client.js'
import { build } from '../helper.js'

// What a facilitator cataloguing the Bazaar does with a seller's 402: read `extensions.bazaar`
// from the v2 PaymentRequired, check it with @x402/extensions' validators, and extract the
// resource with extractDiscoveryInfo (from the payment payload a buyer would send, which echoes
// the extensions). Both routes and both tools must come out catalogued.

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

const decode = (header: string | string[] | number | undefined) => JSON.parse(Buffer.from(String(header), 'base64').toString('utf8')) as PaymentRequired

/** The payload an official client sends for a PaymentRequired: its resource, the chosen requirement and the extensions echoed. */
const payloadFor = (required: PaymentRequired): PaymentPayload =>
  ({ x402Version: 2, resource: required.resource, accepted: required.accepts[0], payload: { transaction: 'AA==' }, extensions: required.extensions }) as PaymentPayload

function bazaarOf (t: Test, required: PaymentRequired): DiscoveryExtension {
  const bazaar = required.extensions?.bazaar as DiscoveryExtension
  t.ok(bazaar, 'the PaymentRequired carries extensions.bazaar')
  t.same(validateDiscoveryExtension(bazaar), { valid: true }, 'its info validates against its schema')
  t.same(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>), { valid: true }, 'it follows the bazaar specification')
  return bazaar
}

t.test('each paid route\'s 402 carries a valid bazaar extension a facilitator catalogues under the route template', async t => {
  const app = await build(t)
  const cases = [
    { url: '/api/fetch-price/SOL?vs=USDC', template: '/api/fetch-price/:token', pathParams: { token: 'SOL' }, queryParams: { vs: 'USDC' } },
    { url: `/api/analyze-token/${USDC}`, template: '/api/analyze-token/:address', pathParams: { address: USDC } }
  ]
  for (const { url, template, pathParams, queryParams } of cases) {
    const res = await app.inject({ url, headers: { host: 'merchant.example' } })
    t.equal(res.statusCode, 402, url)
    const required = decode(res.headers['payment-required'])
    const bazaar = bazaarOf(t, required) as DiscoveryExtension & { routeTemplate?: string }
    t.equal(bazaar.routeTemplate, template, 'the route template, as @x402/extensions names it')
    t.ok(isValidRouteTemplate(bazaar.routeTemplate), 'a route template facilitators accept')
    t.match(bazaar.info.input, { type: 'http', method: 'GET', pathParams }, 'the method and this request\'s path parameters')
    if (queryParams !== undefined) t.match(bazaar.info.input, { queryParams }, 'an example query')

    const discovered = extractDiscoveryInfo(payloadFor(required), required.accepts[0])
    t.match(discovered, { resourceUrl: `http://merchant.example${template}`, method: 'GET', routeTemplate: template, x402Version: 2 }, 'catalogued under its template')
    t.ok(discovered?.discoveryInfo.output?.example, 'with an example of what it returns')

    const refused = await app.inject({ url, headers: { host: 'merchant.example', 'payment-signature': 'not base64 json' } })
    t.equal(refused.statusCode, 402, 'a refused payment')
    bazaarOf(t, decode(refused.headers['payment-required']))
  }
})

t.test('the examples a catalogue shows are valid answers of the products', async t => {
  const ajv = new Ajv({ strict: false, allErrors: true })
  addFormats.default(ajv)
  for (const model of MODELS) ajv.addSchema(model)
  for (const { name: service, ...models } of CATALOGUE.products) {
    t.ok(ajv.validate(models.output, models.example.output), `${service}: the output example is a ${String(models.output.$id)} ${JSON.stringify(ajv.errors ?? [])}`)
    t.ok(ajv.validate(models.params, models.example.params), `${service}: the example path parameters are valid`)
    if (models.query !== undefined) t.ok(ajv.validate(models.query, models.example.query), `${service}: the example query is valid`)
  }
})

t.test('each paid MCP tool\'s PaymentRequired carries a valid bazaar extension catalogued as the tool', async t => {
  const app = await build(t)
  const client = await connectMcp(t, await listen(app))
  const calls = [
    { name: 'fetch_price', arguments: { token: USDC } },
    { name: 'analyze_token', arguments: { address: USDC } }
  ]
  for (const call of calls) {
    const result = await client.callTool(call) as CallToolResult
    t.equal(result.isError, true, `${call.name}: unpaid`)
    const required = result.structuredContent as unknown as PaymentRequired
    t.same(JSON.parse((result.content[0] as { text: string }).text), required, 'the text carries the same PaymentRequired')
    const bazaar = bazaarOf(t, required)
    t.match(bazaar.info.input, { type: 'mcp', toolName: call.name, transport: 'streamable-http' })
    const discovered = extractDiscoveryInfo(payloadFor(required), required.accepts[0])
    t.match(discovered, { toolName: call.name, x402Version: 2 }, 'catalogued as the tool')
  }
})
