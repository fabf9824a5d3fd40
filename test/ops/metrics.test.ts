import t from 'tap'
import { build } from '../helper.js'

const TOKEN = 'a-metrics-token-of-some-length'

t.test('/metrics on the main port answers bearers of METRICS_TOKEN only, in the error shape otherwise', async (t) => {
  const app = await build(t, { METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN, PAYMENT_ADDRESS: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx' })
  for (const authorization of [undefined, 'Bearer wrong-token-of-some-length', `Basic ${TOKEN}`]) {
    const res = await app.inject({ url: '/metrics', headers: authorization === undefined ? {} : { authorization } })
    t.equal(res.statusCode, 401)
    t.match(res.json(), { statusCode: 401, code: 'UNAUTHORIZED', requestId: String })
    t.equal(res.headers['www-authenticate'], 'Bearer')
  }

  for (let i = 0; i < 3; i++) t.equal((await app.inject('/api/fetch-price/SOL')).statusCode, 402)
  t.equal((await app.inject('/no/such/route')).statusCode, 404)
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  t.match(res.body, /^http_requests_total\{route="\/api\/fetch-price\/:token",method="GET",status="402"\} 3$/m)
  t.match(res.body, /^http_requests_total\{route="unmatched",method="GET",status="404"\} 1$/m)
  t.match(res.body, /^payment_challenges_total\{service="fetch-price",door="http"\} 3$/m)
  t.match(res.body, /^process_resident_memory_bytes \d+/m, 'process metrics too')
  const openapi = (await app.inject('/openapi.json')).json() as { paths: Record<string, unknown> }
  t.notOk('/metrics' in openapi.paths, 'an operator endpoint, left out of the API document')
})

t.test('store calls are timed by operation; the shutdown\'s claim ledger tracks the same timed claims', async (t) => {
  const app = await build(t, { METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN, PAYMENT_ADDRESS: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx' })
  const claim = { signature: 'sig-1', claimId: 'claim-1', flow: 'proof', service: 'fetch-price', payer: 'payer', amount: 1n, resource: '/api/fetch-price/SOL', leaseMs: 5000 } as const
  t.same(await app.store.claims.claim(claim), { claimed: true, sent: false })
  t.equal(app.shutdown.claims.held, 1, 'the ledger saw the claim')
  t.same(await app.store.claims.status('sig-1'), { status: 'pending', flow: 'proof' })
  t.same(await app.store.claims.status('sig-2'), undefined)
  t.equal(await app.store.claims.redeem({ signature: 'sig-1', claimId: 'claim-1' }), true)
  t.equal(app.shutdown.claims.held, 0)
  await app.store.audit.record({ requestId: 'r1', service: 'fetch-price', resource: '/api/fetch-price/SOL', outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 3 })
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.match(res.body, /^store_operation_duration_seconds_count\{operation="claims\.claim"\} 1$/m)
  t.match(res.body, /^store_operation_duration_seconds_count\{operation="claims\.status"\} 2$/m)
  t.match(res.body, /^store_operation_duration_seconds_count\{operation="claims\.redeem"\} 1$/m)
  t.match(res.body, /^store_operation_duration_seconds_count\{operation="audit\.record"\} 1$/m)
})

t.test('with METRICS_ENABLED off there is no /metrics and nothing is collected', async (t) => {
  const app = await build(t)
  t.equal(app.metrics, null)
  t.equal((await app.inject('/metrics')).statusCode, 404)
})
