import type { FastifyInstance } from 'fastify'
import t from 'tap'
import type { AuditEntry } from '../../db/contracts/audit-log.js'
import { build, sqliteOf } from '../helper.js'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
// Not on an hour: windows start inside an hour, so their first partial hour is read from raw rows.
const NOW = Date.UTC(2026, 9, 20, 10, 20, 30, 400)

type Attempt = Pick<AuditEntry, 'service' | 'payer' | 'amount' | 'outcome' | 'verified' | 'latencyMs'>

/** Writes attempts through the store's audit log, as the payment gate does. */
function recorder (app: FastifyInstance) {
  let count = 0
  return async (at: number, attempt: Attempt) => {
    count++
    await app.store.audit.record({
      at,
      requestId: `req-${count}`,
      resource: `/api/${attempt.service}/x`,
      signature: attempt.verified ? `sig-${count}` : undefined,
      status: attempt.outcome === 'DELIVERED' ? 200 : 402,
      ...attempt
    })
  }
}

const delivered = (service: string, payer: string, amount: bigint, latencyMs: number): Attempt =>
  ({ service, payer, amount, outcome: 'DELIVERED', verified: true, latencyMs })
const failed = (service: string, payer: string | undefined, outcome: string, verified: boolean, latencyMs: number, amount?: bigint): Attempt =>
  ({ service, payer, amount, outcome, verified, latencyMs })

t.test('the report of a known sequence of audit events', async t => {
  const app = await build(t, { AGENT_NAME: 'known-merchant' })
  const record = recorder(app)
  const first = NOW - 3 * HOUR_MS
  let at = first

  // fetch-price: four deliveries (one overpaid, one the retry of a timed-out proof), a failure
  // after payment and three rejected proofs (one without any payer).
  await record(at++, delivered('fetch-price', 'P1', 50_000n, 100))
  await record(at++, delivered('fetch-price', 'P2', 50_000n, 110))
  await record(at++, delivered('fetch-price', 'P1', 60_000n, 120))
  await record(at++, failed('fetch-price', 'P3', 'UPSTREAM_TIMEOUT', true, 5000, 50_000n))
  await record(at++, delivered('fetch-price', 'P3', 50_000n, 130))
  await record(at++, failed('fetch-price', 'P4', 'AMOUNT_TOO_LOW', false, 20, 100n))
  await record(at++, failed('fetch-price', 'P4', 'PAYMENT_ALREADY_USED', false, 15, 50_000n))
  await record(at++, failed('fetch-price', undefined, 'INVALID_PAYMENT_HEADER', false, 1))
  // analyze-token: 20 deliveries taking 13, 23, ... 203 ms, a client that left, an RPC outage.
  for (let i = 1; i <= 20; i++) await record(at++, delivered('analyze-token', i % 2 === 0 ? 'P1' : 'P5', 100_000n, i * 10 + 3))
  await record(at++, failed('analyze-token', 'P5', 'CLIENT_ABORTED', true, 250, 100_000n))
  const last = at
  await record(last, failed('analyze-token', 'P6', 'RPC_UNAVAILABLE', false, 30))

  const report = await app.reputation.report('all', NOW)
  t.same(report, {
    merchant: { name: 'known-merchant', payment_address: app.config.paymentAddress },
    window: 'all',
    window_start: null,
    computed_at: new Date(NOW).toISOString(),
    requests: 30,
    transactions: 26,
    deliveries: 24,
    success_rate: 0.9231,
    failures: { UPSTREAM_TIMEOUT: 1, AMOUNT_TOO_LOW: 1, PAYMENT_ALREADY_USED: 1, INVALID_PAYMENT_HEADER: 1, CLIENT_ABORTED: 1, RPC_UNAVAILABLE: 1 },
    unique_payers: 4,
    revenue: { base_units: '2210000', token_units: '2.21', token: 'USDC' },
    services: [
      // avg (100 + 110 + 120 + 5000 + 130 + 20 + 15 + 1) / 8; p95 = 8th of 8 = 5000, a bucket bound.
      { service: 'fetch-price', requests: 8, transactions: 5, deliveries: 4, success_rate: 0.8, avg_latency_ms: 687, p95_latency_ms: 5000 },
      // avg (13 + 23 + ... + 203 + 250 + 30) / 22 = 110.909; p95 = 21st of 22 = 203 ms, in the bucket (200, 212].
      { service: 'analyze-token', requests: 22, transactions: 21, deliveries: 20, success_rate: 0.9524, avg_latency_ms: 110.9, p95_latency_ms: 212 }
    ],
    first_activity: new Date(first).toISOString(),
    last_activity: new Date(last).toISOString()
  })
})

t.test('windows end now and start exactly their length before it', async t => {
  const app = await build(t)
  const record = recorder(app)
  await record(NOW - HOUR_MS, delivered('fetch-price', 'P1', 50_000n, 10))
  await record(NOW - DAY_MS, delivered('fetch-price', 'P2', 50_000n, 20))
  await record(NOW - DAY_MS - 1, failed('fetch-price', 'P3', 'UPSTREAM_TIMEOUT', true, 30, 50_000n))
  await record(NOW - 6 * DAY_MS, failed('analyze-token', 'P4', 'AMOUNT_TOO_LOW', false, 40, 1n))
  await record(NOW - 7 * DAY_MS - 1, delivered('analyze-token', 'P2', 100_000n, 50))
  await record(NOW - 30 * DAY_MS, delivered('analyze-token', 'P5', 100_000n, 60))
  await record(NOW - 31 * DAY_MS, delivered('fetch-price', 'P6', 50_000n, 70))

  const figures = async (window: '24h' | '7d' | '30d' | 'all') => {
    const { requests, transactions, deliveries, failures, unique_payers: payers, revenue, window_start: start, first_activity: firstAt } = await app.reputation.report(window, NOW)
    return { requests, transactions, deliveries, failures, payers, revenue: revenue.base_units, start, firstAt }
  }
  const iso = (ms: number) => new Date(ms).toISOString()
  t.same(await figures('24h'), { requests: 2, transactions: 2, deliveries: 2, failures: {}, payers: 2, revenue: '100000', start: iso(NOW - DAY_MS), firstAt: iso(NOW - DAY_MS) })
  t.same(await figures('7d'), {
    requests: 4, transactions: 3, deliveries: 2, failures: { UPSTREAM_TIMEOUT: 1, AMOUNT_TOO_LOW: 1 }, payers: 3, revenue: '100000', start: iso(NOW - 7 * DAY_MS), firstAt: iso(NOW - 6 * DAY_MS)
  })
  t.same(await figures('30d'), {
    requests: 6, transactions: 5, deliveries: 4, failures: { UPSTREAM_TIMEOUT: 1, AMOUNT_TOO_LOW: 1 }, payers: 4, revenue: '300000', start: iso(NOW - 30 * DAY_MS), firstAt: iso(NOW - 30 * DAY_MS)
  })
  t.same(await figures('all'), {
    requests: 7, transactions: 6, deliveries: 5, failures: { UPSTREAM_TIMEOUT: 1, AMOUNT_TOO_LOW: 1 }, payers: 5, revenue: '350000', start: null, firstAt: iso(NOW - 31 * DAY_MS)
  })
  t.equal((await app.reputation.report('24h', NOW)).last_activity, iso(NOW - HOUR_MS))
})

t.test('retention pruning removes rows and the figures follow', async t => {
  const app = await build(t)
  const record = recorder(app)
  await record(NOW - 100 * DAY_MS, delivered('fetch-price', 'OLD', 50_000n, 900))
  await record(NOW - 95 * DAY_MS, failed('fetch-price', 'OLD', 'UPSTREAM_TIMEOUT', true, 800, 50_000n))
  await record(NOW - 10 * DAY_MS, delivered('fetch-price', 'NEW', 50_000n, 100))
  await record(NOW - HOUR_MS, delivered('analyze-token', 'OLD', 100_000n, 200))

  const before = await app.reputation.report('all', NOW)
  t.match(before, { requests: 4, deliveries: 3, unique_payers: 2, failures: { UPSTREAM_TIMEOUT: 1 }, revenue: { base_units: '200000' } })
  t.match(before.services[0], { service: 'fetch-price', requests: 3, avg_latency_ms: 600, p95_latency_ms: 900 })

  t.equal(await app.store.audit.prune(90, NOW), 2, 'the two rows older than 90 days go')
  const after = await app.reputation.report('all', NOW)
  t.match(after, { requests: 2, transactions: 2, deliveries: 2, success_rate: 1, unique_payers: 2, revenue: { base_units: '150000', token_units: '0.15' } })
  t.same(after.failures, {})
  t.same(after.services[0], { service: 'fetch-price', requests: 1, transactions: 1, deliveries: 1, success_rate: 1, avg_latency_ms: 100, p95_latency_ms: 100 })
  t.equal(after.first_activity, new Date(NOW - 10 * DAY_MS).toISOString())
  t.equal((await app.reputation.report('24h', NOW)).unique_payers, 1, 'OLD still paid within the last day')

  t.equal(await app.store.audit.prune(1, NOW), 1)
  t.match(await app.reputation.report('all', NOW), { requests: 1, unique_payers: 1, revenue: { base_units: '100000' }, services: [{ requests: 0, p95_latency_ms: null, avg_latency_ms: null, success_rate: null }, { requests: 1 }] })
  t.equal(sqliteOf(app).prepare('SELECT count(*) FROM reputation_latency WHERE service = ?').pluck().get('fetch-price'), 0, 'emptied aggregates are deleted')
})

t.test('revenue stays exact in bigint base units past 2^64, in every window and after pruning', async t => {
  const app = await build(t)
  const record = recorder(app)
  const U64_MAX = 2n ** 64n - 1n
  const now = Date.now()
  const amounts = [U64_MAX, U64_MAX, 2n ** 63n + 7n, 999_999_999n, 1_000_000_000n]
  for (const [i, amount] of amounts.entries()) await record(now - (i + 1) * 60_000, delivered('analyze-token', 'payer', amount, 5))
  await record(now - 40 * DAY_MS, delivered('analyze-token', 'payer', U64_MAX, 5))
  const expected = amounts.reduce((sum, amount) => sum + amount, 0n)
  t.ok(expected > 2n ** 64n, 'the sum is past 2^64')
  const report = async (window: string) => (await app.inject(`/reputation?window=${window}`)).json()
  t.equal((await report('24h')).revenue.base_units, expected.toString(), '24h: exact')
  t.equal((await report('all')).revenue.base_units, (expected + U64_MAX).toString(), 'all: exact')
  t.equal((await report('all')).services.find((s: { service: string }) => s.service === 'analyze-token').deliveries, 6)

  await app.store.audit.prune(30, now)
  t.equal((await report('all')).revenue.base_units, expected.toString(), 'the pruned row left the sums exactly')
})
