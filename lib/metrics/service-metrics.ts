import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'
import { METRIC_CHANNELS, type ChallengeEvent, type FeePayerSpendEvent, type PaymentAttemptEvent, type RegistryRefreshEvent, type RpcCallEvent, type SettlementEvent } from './events.js'

const SECONDS = (ms: number) => ms / 1000
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const STORE_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1]

/**
 * The service's Prometheus metrics, in a registry of their own (one per app instance). Figures are
 * per process: under PM2 cluster mode each worker is scraped on its own port and Prometheus sums
 * them (docs/operations.md, "Metrics").
 */
export function createServiceMetrics (options: { defaultLabels?: Record<string, string>, processMetrics?: boolean } = {}) {
  const registry = new Registry()
  if (options.defaultLabels !== undefined) registry.setDefaultLabels(options.defaultLabels)
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry })
  const registers = [registry]

  const httpRequests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route template, method and status', labelNames: ['route', 'method', 'status'], registers })
  const httpDuration = new Histogram({ name: 'http_request_duration_seconds', help: 'time to answer an HTTP request', labelNames: ['route', 'method', 'status'], buckets: LATENCY_BUCKETS, registers })
  const challenges = new Counter({ name: 'payment_challenges_total', help: 'payment challenges sent to calls that presented no payment, by door (http: the 402; mcp: the PaymentRequired tool result; a2a: the payment-required task)', labelNames: ['service', 'door'], registers })
  const attempts = new Counter({ name: 'payment_attempts_total', help: 'payments that came through any door, by outcome (DELIVERED or the error code) and flow (proof, x402-v1, x402-v2, mcp, a2a)', labelNames: ['service', 'flow', 'outcome'], registers })
  const settlements = new Counter({ name: 'payment_settlements_total', help: 'settlements of held payments (a proof redeemed for a delivery, or an x402 settlement), by outcome (settled, failed, pending)', labelNames: ['service', 'flow', 'outcome'], registers })
  const feePayerLamports = new Counter({ name: 'x402_fee_payer_lamports_total', help: 'lamports the x402 fee payer spent on settlements, by how they ended (delivered, failed_on_chain, refused_at_send)', labelNames: ['outcome'], registers })
  const feePayerSettlements = new Counter({ name: 'x402_fee_payer_settlements_total', help: 'x402 settlements the fee payer signed, by how they ended (delivered, failed_on_chain, refused_at_send)', labelNames: ['outcome'], registers })
  const rpcCalls = new Counter({ name: 'solana_rpc_requests_total', help: 'Solana JSON-RPC requests, by connection role, method and outcome', labelNames: ['role', 'method', 'outcome'], registers })
  const rpcDuration = new Histogram({ name: 'solana_rpc_request_duration_seconds', help: 'time of one Solana JSON-RPC request', labelNames: ['role', 'method', 'outcome'], buckets: LATENCY_BUCKETS, registers })
  const storeDuration = new Histogram({ name: 'store_operation_duration_seconds', help: 'time of one store operation (claim, redeem, release, audit record, ...)', labelNames: ['operation'], buckets: STORE_BUCKETS, registers })
  const registryRefreshes = new Counter({ name: 'registry_refreshes_total', help: 'reads of the on-chain registry, by outcome', labelNames: ['outcome'], registers })
  const registryDuration = new Histogram({ name: 'registry_refresh_duration_seconds', help: 'time of one registry read from the chain', labelNames: ['outcome'], buckets: LATENCY_BUCKETS, registers })

  const onRpcCall = (message: unknown) => {
    const { role, method, outcome, durationMs } = message as RpcCallEvent
    rpcCalls.inc({ role, method, outcome })
    rpcDuration.observe({ role, method, outcome }, SECONDS(durationMs))
  }
  const onRegistryRefresh = (message: unknown) => {
    const { outcome, durationMs } = message as RegistryRefreshEvent
    registryRefreshes.inc({ outcome })
    registryDuration.observe({ outcome }, SECONDS(durationMs))
  }
  const onAttempt = (message: unknown) => {
    const { service, flow, outcome } = message as PaymentAttemptEvent
    attempts.inc({ service, flow, outcome })
  }
  const onSettlement = (message: unknown) => {
    const { service, flow, outcome } = message as SettlementEvent
    settlements.inc({ service, flow, outcome })
  }
  const onChallenge = (message: unknown) => {
    const { service, door } = message as ChallengeEvent
    challenges.inc({ service, door })
  }
  const onFeePayerSpend = (message: unknown) => {
    const { outcome, lamports } = message as FeePayerSpendEvent
    feePayerSettlements.inc({ outcome })
    feePayerLamports.inc({ outcome }, Number(lamports))
  }
  const subscriptions: Array<[keyof typeof METRIC_CHANNELS, (message: unknown) => void]> = [
    ['rpcCalls', onRpcCall], ['registryRefreshes', onRegistryRefresh], ['attempts', onAttempt], ['settlements', onSettlement], ['feePayerSpends', onFeePayerSpend], ['challenges', onChallenge]
  ]
  for (const [name, listener] of subscriptions) METRIC_CHANNELS[name].subscribe(listener)

  return {
    registry,
    contentType: registry.contentType,
    async render (): Promise<string> { return await registry.metrics() },

    request (labels: { route: string, method: string, status: number }, durationMs: number) {
      const values = { route: labels.route, method: labels.method, status: String(labels.status) }
      httpRequests.inc(values)
      httpDuration.observe(values, SECONDS(durationMs))
    },
    storeOperation (operation: string, durationMs: number) { storeDuration.observe({ operation }, SECONDS(durationMs)) },

    /** Stops listening to the channels (the app closed). */
    close () {
      for (const [name, listener] of subscriptions) METRIC_CHANNELS[name].unsubscribe(listener)
      registry.clear()
    }
  }
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>
