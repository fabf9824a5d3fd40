import t from 'tap'
import { ConfigError, loadConfig } from '../../config.js'
import { derivedCloseGraceMs, killTimeoutProblem, paidRequestPhases, SHUTDOWN_TAIL_MS } from '../../lib/ops/shutdown-grace.js'
import { CATALOGUE } from '../../lib/catalogue/catalogue.js'

const PAYMENT_ADDRESS = 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx'

function problemsOf (env: Record<string, string>): string[] {
  try {
    loadConfig({ PAYMENT_ADDRESS, ...env })
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

t.test('the close grace covers the longest paid request: derived when unset, refused when shorter', async (t) => {
  // verification: getTransaction at RPC_TIMEOUT_MS (10 s); handler: analyze-token's two rounds of
  // data RPC calls (2 × 10 s) outlast fetch-price's two upstream attempts and the wait between (11 s);
  // settlement: sendTransaction at RPC_TIMEOUT_MS and X402_SETTLEMENT_TIMEOUT_MS (30 s) of confirmation.
  t.equal(loadConfig({ PAYMENT_ADDRESS }).closeGraceMs, 10_000 + 20_000 + 40_000 + 1000)
  t.equal(loadConfig({ PAYMENT_ADDRESS, RPC_TIMEOUT_MS: '2000', UPSTREAM_TIMEOUT_MS: '3000', PAYMENT_NOT_FOUND_WAIT_MS: '1500' }).closeGraceMs,
    2000 + 1500 + Math.max(2 * 3000 + 1000, 2 * 2000) + 2000 + 30_000 + 1000, 'the not-found wait and each timeout count')
  t.equal(loadConfig({ PAYMENT_ADDRESS, DATA_RPC_TIMEOUT_MS: '30000', PAYMENT_LEASE_SECONDS: '100' }).closeGraceMs, 10_000 + 60_000 + 40_000 + 1000, 'the data RPC timeout counts')
  t.equal(loadConfig({ PAYMENT_ADDRESS, X402_SETTLEMENT_TIMEOUT_MS: '5000' }).closeGraceMs, 10_000 + 20_000 + 15_000 + 1000, 'the settlement timeout counts')
  t.equal(loadConfig({ PAYMENT_ADDRESS, CLOSE_GRACE_MS: '75000' }).closeGraceMs, 75_000, 'a long enough grace is kept')
  t.same(problemsOf({ CLOSE_GRACE_MS: '3000' }), [
    'CLOSE_GRACE_MS: 3000 is shorter than the longest paid request, 70000 ms (verification 10000 + handler 20000 + settlement 40000); ' +
    'raise it, lower those timeouts, or leave it unset to derive it'
  ])
})

t.test('the claim lease covers what a paid request holds its payment for: the handler and the settlement', async (t) => {
  t.equal(loadConfig({ PAYMENT_ADDRESS }).PAYMENT_LEASE_SECONDS, 90, 'the default covers the default timeouts (20 s + 40 s)')
  t.same(problemsOf({ PAYMENT_LEASE_SECONDS: '30' }), [
    'PAYMENT_LEASE_SECONDS: 30 s is shorter than a paid request holds its payment, 60000 ms (handler 20000 + settlement 40000); raise it or lower those timeouts'
  ])
  t.same(problemsOf({ DATA_RPC_TIMEOUT_MS: '60000' }), [
    'PAYMENT_LEASE_SECONDS: 90 s is shorter than a paid request holds its payment, 160000 ms (handler 120000 + settlement 40000); raise it or lower those timeouts'
  ], 'a longer timeout needs a longer lease')
  t.equal(loadConfig({ PAYMENT_ADDRESS, PAYMENT_LEASE_SECONDS: '5', UPSTREAM_TIMEOUT_MS: '1000', RPC_TIMEOUT_MS: '1000', X402_SETTLEMENT_TIMEOUT_MS: '1000' }).PAYMENT_LEASE_SECONDS, 5,
    'short timeouts allow a short lease')
})

t.test('a new step of a paid request is one more phase', async (t) => {
  const phases = [...paidRequestPhases({ rpcTimeoutMs: 1000, notFoundWaitMs: 0, upstreamTimeoutMs: 1000, dataRpcTimeoutMs: 1000, settlementTimeoutMs: 2000 }, CATALOGUE.products), { name: 'refund', ms: 4000 }]
  t.equal(derivedCloseGraceMs(phases), 1000 + 3000 + 3000 + 4000 + 1000)
})

t.test('under PM2, kill_timeout must outlast the grace and the steps after it', async (t) => {
  const deadline = 31_000 + SHUTDOWN_TAIL_MS
  t.equal(killTimeoutProblem({}, deadline), undefined, 'not under PM2')
  t.equal(killTimeoutProblem({ pm_id: '0', kill_timeout: '40000' }, deadline), undefined)
  t.match(killTimeoutProblem({ pm_id: '0', kill_timeout: '5000' }, deadline), /^PM2 kill_timeout \(5000 ms\) must be longer than the close grace and the steps after it \(34000 ms\)/)
})

t.test('metrics are off by default and never public', async (t) => {
  t.equal(loadConfig({ PAYMENT_ADDRESS }).METRICS_ENABLED, false)
  t.same(problemsOf({ METRICS_ENABLED: 'true' }), [
    'METRICS_ENABLED: set METRICS_PORT (a listener of its own, on METRICS_HOST) or METRICS_TOKEN (on the main port, for bearers of the token), so metrics are not public'
  ])
  t.same(problemsOf({ METRICS_PORT: '9464' }), ['METRICS_ENABLED: METRICS_PORT or METRICS_TOKEN is set, but METRICS_ENABLED is not true'])
  t.same(problemsOf({ METRICS_ENABLED: 'true', METRICS_TOKEN: 'short' }), ['METRICS_TOKEN: "short" is not a valid value'])
  const onPort = loadConfig({ PAYMENT_ADDRESS, METRICS_ENABLED: 'true', METRICS_PORT: '9464' })
  t.equal(onPort.metricsPort, 9464)
  t.equal(onPort.METRICS_HOST, '127.0.0.1', 'on loopback unless told otherwise')
  t.equal(loadConfig({ PAYMENT_ADDRESS, METRICS_ENABLED: 'true', METRICS_PORT: '9464', NODE_APP_INSTANCE: '3' }).metricsPort, 9467, 'PM2 worker 3 listens on its own port')
  t.equal(loadConfig({ PAYMENT_ADDRESS, METRICS_ENABLED: 'true', METRICS_TOKEN: 'a-long-enough-secret' }).metricsPort, undefined)
})
