import type { LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { build } from '../helper.js'

const MINT = 'So11111111111111111111111111111111111111112'

// Hooks set them on most routes, the hottest routes' own code on theirs (config.setsFixedHeaders),
// the error handler on every error: each kind of answer is checked here.
function assertFixedHeaders (t: Test, what: string, res: LightMyRequestResponse, https = false) {
  t.equal(res.headers['x-content-type-options'], 'nosniff', `${what}: x-content-type-options`)
  t.equal(res.headers['x-frame-options'], 'DENY', `${what}: x-frame-options`)
  t.equal(res.headers['access-control-allow-origin'], '*', `${what}: access-control-allow-origin`)
  t.match(res.headers['access-control-expose-headers'], /payment-required/, `${what}: access-control-expose-headers`)
  t.match(res.headers['x-request-id'], /\S/, `${what}: x-request-id`)
  if (res.headers['content-type']?.toString().startsWith('application/json') === true && res.statusCode >= 400 && res.body !== '') {
    t.equal(res.json().requestId, res.headers['x-request-id'], `${what}: the header names the body's request id`)
  }
  if (https) t.match(res.headers['strict-transport-security'], /max-age=/, `${what}: HSTS over HTTPS`)
  else t.notOk(res.headers['strict-transport-security'], `${what}: no HSTS over HTTP`)
}

t.test('every kind of answer carries the security and CORS headers and its request id', async t => {
  const app = await build(t, { TRUST_PROXY: '1' }, app => {
    app.get('/test/fails', async () => { throw new Error('internal detail') })
  })
  const manifest = await app.inject('/.well-known/agent.json')
  const answers: Array<[string, LightMyRequestResponse]> = [
    ['manifest', manifest],
    ['manifest 304', await app.inject({ url: '/.well-known/agent.json', headers: { 'if-none-match': String(manifest.headers.etag) } })],
    ['manifest HEAD', await app.inject({ method: 'HEAD', url: '/.well-known/agent.json' })],
    ['analyze-token 402', await app.inject(`/api/analyze-token/${MINT}`)],
    ['analyze-token HEAD 402', await app.inject({ method: 'HEAD', url: `/api/analyze-token/${MINT}` })],
    ['analyze-token malformed address 400', await app.inject('/api/analyze-token/not-a-mint')],
    ['analyze-token address of 31 bytes 400', await app.inject(`/api/analyze-token/${MINT.slice(0, -2)}`)],
    ['fetch-price symbol lookup, token list unreachable', await app.inject('/api/fetch-price/NOSUCHTOKEN')],
    ['fetch-price 402', await app.inject('/api/fetch-price/SOL')],
    ['fetch-price malformed proof 402', await app.inject({ url: '/api/fetch-price/SOL', headers: { 'x-payment-signature': 'nope', 'x-payment-wallet': 'nope' } })],
    ['fetch-price malformed x402 payment', await app.inject({ url: '/api/fetch-price/SOL', headers: { 'payment-signature': 'not base64 json' } })],
    ['health', await app.inject('/health/live')],
    ['x402 discovery', await app.inject('/.well-known/x402')],
    ['llms.txt', await app.inject('/llms.txt')],
    ['llms.txt 304', await app.inject({ url: '/llms.txt', headers: { 'if-none-match': String((await app.inject('/llms.txt')).headers.etag) } })],
    ['template probe 402', await app.inject('/api/fetch-price/%7Btoken%7D')],
    ['reputation', await app.inject('/reputation')],
    ['openapi', await app.inject('/openapi.json')],
    ['preflight', await app.inject({ method: 'OPTIONS', url: '/api/fetch-price/SOL', headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' } })],
    ['unknown route 404', await app.inject('/no/such/route')],
    ['bad percent-encoding 400', await app.inject('/api/analyze-token/%E0%A4%A')],
    ['handler failure 500', await app.inject('/test/fails')]
  ]
  for (const [what, res] of answers) assertFixedHeaders(t, `${what} (${res.statusCode})`, res)

  const overHttps = { 'x-forwarded-proto': 'https' }
  assertFixedHeaders(t, 'manifest over HTTPS', await app.inject({ url: '/.well-known/agent.json', headers: overHttps }), true)
  assertFixedHeaders(t, '402 over HTTPS', await app.inject({ url: `/api/analyze-token/${MINT}`, headers: overHttps }), true)
  assertFixedHeaders(t, 'reputation over HTTPS', await app.inject({ url: '/reputation', headers: overHttps }), true)
})

t.test('the rate limit answer carries them too', async t => {
  const app = await build(t, { RATE_LIMIT_MAX: '1' })
  await app.inject('/.well-known/agent.json')
  const limited = await app.inject(`/api/analyze-token/${MINT}`)
  t.equal(limited.statusCode, 429)
  assertFixedHeaders(t, 'rate limited (429)', limited)
})
