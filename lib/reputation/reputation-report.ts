import type { LatencyBucket, ReputationFigures, ReputationQueries } from '../../db/contracts/reputation-queries.js'
import type { ReputationBody, ReputationWindowName } from '../../schemas/reputation.js'
import { formatTokenAmount } from '../solana/token-amount.js'

const DAY_MS = 86_400_000

/** Length of each window; `all` has no start. */
export const WINDOW_MS: Record<ReputationWindowName, number | null> = { '24h': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS, all: null }

const DELIVERED = 'DELIVERED'

/** part / whole with four decimals, or null when there is nothing to divide. */
function rate (part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round(part / whole * 10_000) / 10_000
}

/**
 * Nearest-rank percentile of a histogram whose buckets are in ascending order: the upper bound of
 * the bucket that holds the ceil(fraction * n)-th smallest value.
 */
function percentileOfBuckets (buckets: LatencyBucket[], fraction: number): number | null {
  const total = buckets.reduce((sum, bucket) => sum + bucket.requests, 0)
  if (total === 0) return null
  const rank = Math.ceil(fraction * total)
  let seen = 0
  return buckets.find(bucket => (seen += bucket.requests) >= rank)?.upperMs ?? null
}

function serviceFigures (figures: ReputationFigures, service: string) {
  let requests = 0
  let transactions = 0
  let deliveries = 0
  let latencyMsSum = 0
  for (const row of figures.outcomes) {
    if (row.service !== service) continue
    requests += row.requests
    latencyMsSum += row.latencyMsSum
    if (row.verified) transactions += row.requests
    if (row.outcome === DELIVERED) deliveries += row.requests
  }
  return {
    service,
    requests,
    transactions,
    deliveries,
    success_rate: rate(deliveries, transactions),
    avg_latency_ms: requests === 0 ? null : Math.round(latencyMsSum / requests * 10) / 10,
    p95_latency_ms: percentileOfBuckets(figures.latency.filter(bucket => bucket.service === service), 0.95)
  }
}

const isoOrNull = (ms: number | null) => ms === null ? null : new Date(ms).toISOString()

export interface ReputationOptions {
  queries: ReputationQueries
  merchant: { name: string, paymentAddress: string }
  tokenSymbol: string
  /** The services sold, listed first and in this order (the catalogue's products); others the log holds follow. */
  services: readonly string[]
}

/** The GET /reputation body, computed from the audit aggregates for a window that ends now. */
export function createReputation ({ queries, merchant, tokenSymbol, services: sold }: ReputationOptions) {
  return {
    async report (window: ReputationWindowName, now = Date.now()): Promise<ReputationBody> {
      const length = WINDOW_MS[window]
      const from = length === null ? null : now - length
      const figures = await queries.read(from ?? 0)

      const logged = new Set(figures.outcomes.map(row => row.service))
      const names = [...sold, ...[...logged].filter(name => !sold.includes(name)).sort()]
      const services = names.map(name => serviceFigures(figures, name))

      const failures: Record<string, number> = {}
      let revenue = 0n
      for (const row of figures.outcomes) {
        if (row.outcome === DELIVERED) revenue += row.revenue
        else failures[row.outcome] = (failures[row.outcome] ?? 0) + row.requests
      }
      const sum = (key: 'requests' | 'transactions' | 'deliveries') => services.reduce((total, service) => total + service[key], 0)
      const transactions = sum('transactions')
      const deliveries = sum('deliveries')

      return {
        merchant: { name: merchant.name, payment_address: merchant.paymentAddress },
        window,
        window_start: isoOrNull(from),
        computed_at: new Date(now).toISOString(),
        requests: sum('requests'),
        transactions,
        deliveries,
        success_rate: rate(deliveries, transactions),
        failures,
        unique_payers: figures.uniquePayers,
        revenue: { base_units: revenue.toString(), token_units: formatTokenAmount(revenue), token: tokenSymbol },
        services,
        first_activity: isoOrNull(figures.firstAt),
        last_activity: isoOrNull(figures.lastAt)
      }
    }
  }
}
