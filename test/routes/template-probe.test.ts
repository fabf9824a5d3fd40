import t from 'tap'
import { build } from '../helper.js'

// x402scan probes a paid route at its OpenAPI template (braces percent-encoded) and registers it
// only on a 402 with the terms; every other malformed value stays a 400 before any payment.

const decode = (header: unknown) => JSON.parse(Buffer.from(String(header), 'base64').toString('utf8'))

t.test('a request for a paid route\'s own template answers the 402 with the terms', async t => {
  const app = await build(t)
  const probes = [
    { url: '/api/fetch-price/%7Btoken%7D', amount: '50000', template: '/api/fetch-price/:token' },
    { url: '/api/fetch-price/{token}', amount: '50000', template: '/api/fetch-price/:token' },
    { url: '/api/fetch-price/%7Btoken%7D?vs=USDC', amount: '50000', template: '/api/fetch-price/:token' },
    { url: '/api/analyze-token/%7Baddress%7D', amount: '100000', template: '/api/analyze-token/:address' }
  ]
  for (const { url, amount, template } of probes) {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await app.inject({ method, url })
      t.equal(res.statusCode, 402, `${method} ${url}`)
      const required = decode(res.headers['payment-required'])
      t.match(required, { x402Version: 2, accepts: [{ scheme: 'exact', amount }] }, 'the terms in PAYMENT-REQUIRED')
      t.equal(required.extensions.bazaar.routeTemplate, template, 'with the bazaar extension of the route')
      t.notMatch(Object.values(required.extensions.bazaar.info.input.pathParams).join(' '), /[{}]/, 'whose path parameters are an example, not the template')
      if (method === 'GET') t.match(res.json(), { code: 'PAYMENT_REQUIRED', x402Version: 1, accepts: [{ maxAmountRequired: amount }] }, 'and in the body (x402 v1)')
      t.equal(res.headers['x-content-type-options'], 'nosniff', 'with the fixed headers')
    }
  }
})

t.test('every other malformed value is still a 400 before any payment, and a template cannot be bought', async t => {
  const app = await build(t)
  const refused = [
    '/api/fetch-price/!!',
    '/api/fetch-price/%7Baddress%7D',
    '/api/fetch-price/%7Btoken',
    '/api/fetch-price/SOL?vs=!!',
    '/api/analyze-token/not-a-mint',
    '/api/analyze-token/%7Btoken%7D',
    '/api/analyze-token/1111111111111111111111111111111'
  ]
  for (const url of refused) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().code, 'VALIDATION_ERROR', `${url}: VALIDATION_ERROR`)
    t.notOk(res.headers['payment-required'], `${url}: no payment asked`)
  }
  const schemaRefusal = (await app.inject('/api/fetch-price/!!')).json()
  t.match(schemaRefusal.message, /token/, 'a schema refusal names the parameter, as before')

  for (const headers of [{ 'payment-signature': 'e30=' }, { 'x-payment-signature': 'x', 'x-payment-wallet': 'y' }]) {
    const paid = await app.inject({ url: '/api/analyze-token/%7Baddress%7D', headers })
    t.equal(paid.statusCode, 400, `a payment for the template (${Object.keys(headers).join(', ')}) is refused`)
    t.match(paid.json(), { code: 'VALIDATION_ERROR', message: /route template/ })
  }
})
