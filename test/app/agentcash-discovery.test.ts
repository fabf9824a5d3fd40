import { checkEndpointSchema, discoverOriginSchema, getOpenAPI, getWarningsForOpenAPI, validatePaymentRequiredDetailed } from '@agentcash/discovery'
import t from 'tap'
import { listen } from '../fixtures/mcp-client.js'
import { build } from '../helper.js'

// A crawler following x402scan's published rules: it runs @agentcash/discovery (the library x402scan
// uses) on the origin's /openapi.json, then probes each paid operation at its raw template and
// validates the PaymentRequired it gets. Both products must come out registrable: paid, priced, x402.

const PAID: Record<string, string> = { '/api/fetch-price/{token}': '0.05 USD', '/api/analyze-token/{address}': '0.1 USD' }
const AMOUNT: Record<string, string> = { '/api/fetch-price/{token}': '50000', '/api/analyze-token/{address}': '100000' }

t.test('@agentcash/discovery classes both paid operations as paid x402 at their prices, the free ones unprotected', async t => {
  // The devnet name: the validator knows the public clusters' CAIP-2 references, not a local chain's.
  const app = await build(t, { X402_NETWORK: 'solana-devnet' })
  const base = await listen(app)

  const discovered = await discoverOriginSchema({ target: base })
  t.equal(discovered.found, true, 'found through /openapi.json')
  if (!discovered.found) return
  t.equal(discovered.guidanceAvailable, true, 'with guidance (info.x-guidance)')
  for (const endpoint of discovered.endpoints) {
    const price = PAID[endpoint.path]
    if (price === undefined) t.equal(endpoint.authMode, 'unprotected', `${endpoint.method} ${endpoint.path}: free`)
    else {
      t.match(endpoint, { authMode: 'paid', price, pricingMode: 'fixed', currency: 'USD' }, `${endpoint.method} ${endpoint.path}: paid`)
      t.same(endpoint.protocols, ['x402', 'mpp'], `${endpoint.method} ${endpoint.path}: x402, and MPP's charge beside it`)
    }
  }
  t.same(discovered.endpoints.filter(endpoint => endpoint.authMode === 'paid').map(endpoint => endpoint.path).sort(), Object.keys(PAID).sort(), 'both products')

  const openapi = await getOpenAPI(base)
  t.ok(openapi.isOk(), 'the document parses')
  if (openapi.isOk() && openapi.value !== null && !('parseFailure' in openapi.value)) {
    const problems = getWarningsForOpenAPI(openapi.value).filter(warning => warning.severity !== 'info')
    t.same(problems, [], 'no error or warning on the document')
  }

  for (const template of Object.keys(PAID)) {
    const checked = await checkEndpointSchema({ url: `${base}${template.replace(/[{}]/g, brace => encodeURIComponent(brace))}`, probe: true })
    t.equal(checked.found, true, `${template}: the template probe is found`)
    if (!checked.found) continue
    const advisory = checked.advisories[0]
    t.match(advisory, { method: 'GET', source: 'probe', authMode: 'paid' }, `${template}: the probe got the 402, not a 400`)
    t.match(advisory.paymentOptions, [{ protocol: 'x402', version: 2, scheme: 'exact', amount: AMOUNT[template] }], `${template}: its x402 v2 terms`)
    t.ok(advisory.outputSchema, `${template}: an output schema from the bazaar extension`)
    const validation = validatePaymentRequiredDetailed(advisory.paymentRequiredBody)
    t.same(validation.issues.filter(issue => issue.severity !== 'info'), [], `${template}: the PaymentRequired validates`)
    t.equal(validation.valid, true)
  }
})
