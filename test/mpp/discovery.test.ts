import { discoverOriginSchema } from '@agentcash/discovery'
import { validate } from 'mppx/discovery'
import t from 'tap'
import { listen } from '../fixtures/mcp-client.js'
import { build } from '../helper.js'

// Discovery says MPP is accepted where it is (issue #53 item 3): the OpenAPI document's paid
// operations carry the Solana charge's offer and pass mppx's own discovery validator; the manifest,
// /.well-known/x402, /llms.txt and info.x-guidance name it; with MPP_CHARGE=false none of them does.

const AMOUNT: Record<string, string> = { '/api/fetch-price/{token}': '50000', '/api/analyze-token/{address}': '100000' }

t.test('with the charge on (the default): every reader finds the solana charge beside x402', async t => {
  const app = await build(t, { X402_NETWORK: 'solana-devnet' })
  const document = (await app.inject('/openapi.json')).json()
  t.same(validate(document).filter(problem => problem.severity === 'error'), [], "mppx's discovery validator finds no error")
  for (const [path, amount] of Object.entries(AMOUNT)) {
    const info = document.paths[path].get['x-payment-info']
    t.same(info.offers, [{ method: 'solana', intent: 'charge', currency: app.config.paymentMint, amount, description: info.offers[0].description }], `${path}: the charge's offer in base units`)
    t.match(info.protocols, [{ x402: { amount } }, { mpp: { method: 'solana', intent: 'charge', currency: app.config.paymentMint } }], `${path}: and in @agentcash's form`)
  }
  t.match(document.info['x-guidance'], /WWW-Authenticate: Payment challenges \(method solana, intent charge\)/)

  const discovered = await discoverOriginSchema({ target: await listen(app) })
  t.equal(discovered.found, true)
  if (discovered.found) {
    for (const endpoint of discovered.endpoints.filter(endpoint => endpoint.authMode === 'paid')) {
      t.same([...(endpoint.protocols ?? [])].sort(), ['mpp', 'x402'], `${endpoint.path}: @agentcash/discovery lists both protocols`)
    }
  }

  t.same((await app.inject('/.well-known/agent.json')).json().payment_methods, ['x402', 'pay-then-prove', 'mpp'], 'the manifest')
  t.match((await app.inject('/.well-known/x402')).json().instructions, /Authorization: Payment/, '/.well-known/x402')
  t.match((await app.inject('/llms.txt')).body, /\n5\. MPP: the 402 also carries WWW-Authenticate: Payment/, '/llms.txt')
})

t.test('with MPP_CHARGE=false: no document offers it', async t => {
  const app = await build(t, { X402_NETWORK: 'solana-devnet', MPP_CHARGE: 'false' })
  const document = (await app.inject('/openapi.json')).json()
  for (const path of Object.keys(AMOUNT)) {
    const info = document.paths[path].get['x-payment-info']
    t.notOk('offers' in info, `${path}: no offer`)
    t.same(info.protocols.map((protocol: object) => Object.keys(protocol)[0]), ['x402'])
  }
  t.notMatch(document.info['x-guidance'], /WWW-Authenticate/)
  t.same((await app.inject('/.well-known/agent.json')).json().payment_methods, ['x402', 'pay-then-prove'])
  t.notMatch((await app.inject('/.well-known/x402')).json().instructions, /Payment/)
  t.notMatch((await app.inject('/llms.txt')).body, /MPP/)
})
