import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import { Reputation, ReputationMerchant, ReputationRevenue, ReputationService } from '../../schemas/reputation.js'
import { build } from '../helper.js'

FormatRegistry.Set('date-time', value => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value))

const DAY_MS = 86_400_000
const modelErrors = (body: unknown) => [...Value.Errors(Reputation, [ReputationMerchant, ReputationRevenue, ReputationService], body)].map(e => `${e.path} ${e.message}`)

t.test('GET /reputation reports the audit log, over the whole log by default', async t => {
  const app = await build(t, { AGENT_NAME: 'route-merchant' })
  const now = Date.now()
  const entry = { resource: '/x', status: 200, requestId: 'r' }
  await app.store.audit.record({ ...entry, at: now - 1000, service: 'fetch-price', payer: 'P1', signature: 's1', amount: 50_000n, outcome: 'DELIVERED', verified: true, latencyMs: 80 })
  await app.store.audit.record({ ...entry, at: now - 2000, service: 'analyze-token', payer: 'P2', signature: 's2', amount: 100_000n, outcome: 'UPSTREAM_TIMEOUT', verified: true, status: 504, latencyMs: 5000 })
  await app.store.audit.record({ ...entry, at: now - 3 * DAY_MS, service: 'analyze-token', payer: 'P2', signature: 's3', amount: 100_000n, outcome: 'DELIVERED', verified: true, latencyMs: 300 })
  await app.store.audit.record({ ...entry, at: now - 3 * DAY_MS, service: 'fetch-price', payer: 'P3', amount: 10n, outcome: 'AMOUNT_TOO_LOW', verified: false, status: 402, latencyMs: 12 })

  const res = await app.inject('/reputation')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(modelErrors(body), [], 'valid against the Reputation model')
  t.match(body, {
    merchant: { name: 'route-merchant', payment_address: app.config.paymentAddress },
    window: 'all',
    window_start: null,
    requests: 4,
    transactions: 3,
    deliveries: 2,
    success_rate: 0.6667,
    failures: { UPSTREAM_TIMEOUT: 1, AMOUNT_TOO_LOW: 1 },
    unique_payers: 2,
    revenue: { base_units: '150000', token_units: '0.15', token: 'USDC' },
    first_activity: new Date(now - 3 * DAY_MS).toISOString(),
    last_activity: new Date(now - 1000).toISOString()
  })
  t.same(body.services.map((service: { service: string }) => service.service), ['fetch-price', 'analyze-token'])
  t.ok(Math.abs(Date.parse(body.computed_at) - Date.now()) < 60_000, 'computed now')

  const day = (await app.inject({ url: '/reputation', query: { window: '24h' } })).json()
  t.same(modelErrors(day), [])
  t.match(day, { window: '24h', requests: 2, transactions: 2, deliveries: 1, success_rate: 0.5, unique_payers: 2, revenue: { base_units: '50000' } })
  t.same(day.failures, { UPSTREAM_TIMEOUT: 1 })
  t.equal(Date.parse(day.window_start), Date.parse(day.computed_at) - DAY_MS, 'the window starts 24 hours before computed_at')
  t.match(day.services, [
    { service: 'fetch-price', requests: 1, deliveries: 1, success_rate: 1, avg_latency_ms: 80, p95_latency_ms: 80 },
    { service: 'analyze-token', requests: 1, deliveries: 0, success_rate: 0, avg_latency_ms: 5000, p95_latency_ms: 5000 }
  ])
  t.equal((await app.inject({ url: '/reputation', query: { window: '7d' } })).json().requests, 4)
})

t.test('GET /reputation with an empty log has zeros and nulls, never a division by zero', async t => {
  const app = await build(t)
  const res = await app.inject({ url: '/reputation', query: { window: '30d' } })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(modelErrors(body), [])
  t.match(body, { window: '30d', requests: 0, transactions: 0, success_rate: null, unique_payers: 0, revenue: { base_units: '0', token_units: '0' }, first_activity: null, last_activity: null })
  t.same(body.failures, {})
  for (const service of body.services) t.match(service, { requests: 0, success_rate: null, avg_latency_ms: null, p95_latency_ms: null })
})

t.test('GET /reputation refuses an unknown window with 400', async t => {
  const app = await build(t)
  for (const window of ['1y', '24H', '']) {
    const res = await app.inject({ url: '/reputation', query: { window } })
    t.equal(res.statusCode, 400, `window=${window}`)
    t.match(res.json(), { code: 'VALIDATION_ERROR', statusCode: 400 })
  }
})
