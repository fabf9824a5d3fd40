import t, { type Test } from 'tap'
import { AppError } from '../../lib/errors/app-error.js'
import { loadConfig } from '../../config.js'
import { build } from '../helper.js'

const ERROR_KEYS = ['code', 'error', 'message', 'requestId', 'statusCode']

function assertErrorShape (t: Test, body: Record<string, unknown>, status: number, code: string) {
  for (const key of ERROR_KEYS) t.ok(key in body, `error body has ${key}`)
  t.equal(body.statusCode, status)
  t.equal(body.code, code)
}

t.test('unknown routes answer 404 in the error shape', async (t) => {
  const app = await build(t)
  const res = await app.inject('/no/such/route?x=1')
  t.equal(res.statusCode, 404)
  assertErrorShape(t, res.json(), 404, 'NOT_FOUND')
  t.equal(res.json().message, 'Route GET /no/such/route not found')
  t.equal(res.headers['x-request-id'], res.json().requestId, 'error answers carry the request id header')
  t.equal(res.headers['x-frame-options'], 'DENY', 'and the security headers')
  t.equal(res.headers['x-content-type-options'], 'nosniff')
  t.notOk(res.headers['strict-transport-security'], 'HSTS is never sent over plain HTTP (RFC 6797)')
  t.match(res.headers['content-type'], /application\/json/)
})

t.test('a malformed path parameter is a 400 naming the parameter, before any payment talk', async (t) => {
  const app = await build(t)
  const res = await app.inject('/api/fetch-price/not%20a%20token!')
  t.equal(res.statusCode, 400)
  assertErrorShape(t, res.json(), 400, 'VALIDATION_ERROR')
  t.match(res.json().message, /params\.token/)
  t.notOk(res.headers['x-payment-response'])
})

t.test('5xx answers hide the internal message and carry the request id', async (t) => {
  const app = await build(t, {}, (app) => {
    app.get('/boom', async () => { throw new Error('database password is hunter2') })
    app.get('/unavailable', async () => { throw new AppError('UPSTREAM_UNAVAILABLE', 'Upstream is down', { headers: { 'retry-after': '7' } }) })
  })
  const res = await app.inject({ url: '/boom', headers: { 'x-request-id': 'trace-123' } })
  t.equal(res.statusCode, 500)
  assertErrorShape(t, res.json(), 500, 'INTERNAL_ERROR')
  t.notMatch(res.body, /hunter2/)
  t.notMatch(res.body, /at .*\.ts/, 'no stack trace')
  t.equal(res.json().requestId, 'trace-123')

  const unavailable = await app.inject('/unavailable')
  t.equal(unavailable.statusCode, 503)
  t.equal(unavailable.headers['retry-after'], '7')
  assertErrorShape(t, unavailable.json(), 503, 'UPSTREAM_UNAVAILABLE')
})

t.test('request ids: an incoming x-request-id is echoed, a missing or odd one is replaced', async (t) => {
  const app = await build(t)
  const echoed = await app.inject({ url: '/health/live', headers: { 'x-request-id': 'abc-123' } })
  t.equal(echoed.headers['x-request-id'], 'abc-123')
  const generated = await app.inject('/health/live')
  t.match(generated.headers['x-request-id'], /^[0-9a-f]{12}-[0-9a-z]+$/)
  t.not((await app.inject('/health/live')).headers['x-request-id'], generated.headers['x-request-id'], 'ids differ')
  const odd = await app.inject({ url: '/health/live', headers: { 'x-request-id': 'x'.repeat(300) } })
  t.match(odd.headers['x-request-id'], /^[0-9a-f]{12}-[0-9a-z]+$/)
})

t.test('rate limiting answers 429 in the error shape with Retry-After', async (t) => {
  const app = await build(t, { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' })
  await app.inject('/.well-known/agent.json')
  await app.inject('/.well-known/agent.json')
  const res = await app.inject('/.well-known/agent.json')
  t.equal(res.statusCode, 429)
  assertErrorShape(t, res.json(), 429, 'RATE_LIMITED')
  t.ok(Number(res.headers['retry-after']) > 0)
})

t.test('rate limiting is on by default (300 a minute per client); health probes are never counted', async (t) => {
  const defaults = loadConfig({})
  t.equal(defaults.RATE_LIMIT_MAX, 300)
  t.equal(defaults.PROOF_FAILURE_LIMIT, 20)
  // (testEnv turns the limits off for other tests: this app gets the defaults back.)
  const app = await build(t, { RATE_LIMIT_MAX: String(defaults.RATE_LIMIT_MAX), PROOF_FAILURE_LIMIT: String(defaults.PROOF_FAILURE_LIMIT) })
  const probes = new Set<number>()
  for (let i = 0; i < 320; i++) probes.add((await app.inject('/health/live')).statusCode)
  t.same([...probes], [200], '320 probes: all answered')
  const statuses: number[] = []
  for (let i = 0; i < 301; i++) statuses.push((await app.inject({ url: '/.well-known/agent.json', remoteAddress: '10.0.0.5' })).statusCode)
  t.same(new Set(statuses.slice(0, 300)), new Set([200]), 'the first 300 requests of a client are served')
  t.equal(statuses[300], 429, 'the 301st is limited')
  t.equal((await app.inject({ url: '/.well-known/agent.json', remoteAddress: '10.0.0.6' })).statusCode, 200, 'another client is not')
})

t.test('CORS is open for GET and exposes the payment headers', async (t) => {
  const app = await build(t)
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/fetch-price/SOL',
    headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-payment-signature,x-payment-wallet' }
  })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], '*')
  t.match(preflight.headers['access-control-allow-headers'], /x-payment-signature/)
  const res = await app.inject({ url: '/.well-known/agent.json', headers: { origin: 'https://agent.example' } })
  t.match(res.headers['access-control-expose-headers'], /x-payment-response/)
  t.equal(res.headers['x-content-type-options'], 'nosniff', 'security headers are set')
})

t.test('health: live always, ready reports the database and a down RPC', async (t) => {
  const app = await build(t)
  t.same((await app.inject('/health/live')).json(), { status: 'ok' })
  const ready = await app.inject('/health/ready')
  t.equal(ready.statusCode, 200)
  t.match(ready.json(), { status: 'degraded', checks: { database: 'up', rpc: 'down', data_rpc: 'down', fee_payer: /^(ok|low|unchecked)$/ } })
})

t.test('a parameter refused by its pattern is told what the pattern asks, in words, never the regular expression', async (t) => {
  const app = await build(t)
  for (const [url, path, words] of [
    ['/api/analyze-token/abc', 'params.address', /must be a base58 Solana address: 32 to 44 characters/],
    ['/api/analyze-token/' + 'O'.repeat(44), 'params.address', /letters except 0, O, I and l/],
    ['/api/fetch-price/%25%25', 'params.token', /must be a token symbol .* or a base58 mint address/]
  ] as const) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400)
    assertErrorShape(t, res.json(), 400, 'VALIDATION_ERROR')
    t.match(res.json().message, words, url)
    t.match(res.json().validation, [{ in: 'params', path: path.slice('params.'.length), message: words }])
    t.notMatch(res.json().message, /\^|\{32,44\}|pattern/, 'no regular expression')
  }
})
