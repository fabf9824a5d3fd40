import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { BaseUnits, IsoDateTime, SolanaAddress } from './common.js'
import { ref } from './ref.js'

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

const SuccessRate = Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'deliveries / transactions, four decimals; null without transactions' }))

export const ReputationWindow = Type.Union([Type.Literal('24h'), Type.Literal('7d'), Type.Literal('30d'), Type.Literal('all')], {
  description: 'period that ends now: the last 24 hours, 7 days, 30 days, or the whole audit log'
})

export type ReputationWindowName = Static<typeof ReputationWindow>

export const DEFAULT_REPUTATION_WINDOW: ReputationWindowName = 'all'

/** Options of GET /reputation (its query string) and of the get_reputation MCP tool. */
export const ReputationQuery = Type.Object({
  window: Type.Optional(Type.Union(ReputationWindow.anyOf, { default: DEFAULT_REPUTATION_WINDOW, description: ReputationWindow.description }))
})

export const ReputationMerchant = Type.Object({
  name: Type.String({ description: 'agent name, as in the manifest' }),
  payment_address: Type.String({ pattern: SolanaAddress.pattern, description: 'wallet that receives the payments' })
}, { $id: 'ReputationMerchant', additionalProperties: false })

export const ReputationRevenue = Type.Object({
  base_units: BaseUnits,
  token_units: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'the same amount in token units, exact decimal text' }),
  token: Type.String({ description: 'symbol of the payment token' })
}, { $id: 'ReputationRevenue', additionalProperties: false, description: 'sum of the amounts paid for the requests that were delivered' })

export const ReputationService = Type.Object({
  service: Type.String({ description: 'name of the paid service, as in the manifest' }),
  requests: Type.Integer({ minimum: 0, description: 'requests whose payment proof was verified and claimed (proofs that named no good payment are counted apart, never logged)' }),
  transactions: Type.Integer({ minimum: 0, description: 'of those, requests whose payment passed every check and was claimed' }),
  deliveries: Type.Integer({ minimum: 0, description: 'of those, requests answered with the data' }),
  success_rate: SuccessRate,
  avg_latency_ms: Nullable(Type.Number({ minimum: 0, description: 'mean time to answer the requests, one decimal; null without requests' })),
  p95_latency_ms: Nullable(Type.Number({
    minimum: 0,
    description: '95th percentile (nearest rank) of the time to answer, read from a histogram with fixed buckets (R40 preferred numbers: ' +
      '..., 100, 106, 112, ... 950, 1000 ms) as the upper bound of its bucket: at most 7.2% above the exact value; null without requests'
  }))
}, { $id: 'ReputationService', additionalProperties: false })

/** Body of GET /reputation. */
export const Reputation = Type.Object({
  merchant: ref(ReputationMerchant),
  window: ReputationWindow,
  window_start: Nullable(IsoDateTime),
  computed_at: IsoDateTime,
  requests: Type.Integer({ minimum: 0, description: 'requests whose payment proof was verified and claimed (proofs that named no good payment are counted apart, never logged)' }),
  transactions: Type.Integer({ minimum: 0, description: 'requests whose payment passed every check and was claimed (verified payments; a retry with the same proof after a failed delivery counts again)' }),
  deliveries: Type.Integer({ minimum: 0, description: 'transactions answered with the data (outcome DELIVERED)' }),
  success_rate: SuccessRate,
  failures: Type.Object({}, {
    additionalProperties: Type.Integer({ minimum: 1 }),
    description: 'verified payments not delivered, by error code (e.g. UPSTREAM_TIMEOUT, CLIENT_ABORTED, PAYMENT_ALREADY_USED when a lease ran out)'
  }),
  unique_payers: Type.Integer({ minimum: 0, description: 'distinct wallets with a verified payment' }),
  revenue: ref(ReputationRevenue),
  services: Type.Array(ref(ReputationService), { description: 'every service of the price table, then any other service found in the log' }),
  first_activity: Nullable(IsoDateTime),
  last_activity: Nullable(IsoDateTime)
}, {
  $id: 'Reputation',
  additionalProperties: false,
  description: 'Trust signals computed from the audit log of payment attempts, over a window that ends now. Requests without a payment proof (402 challenges) are not counted.'
})

export type ReputationBody = Static<typeof Reputation>

/** Options of GET /reputation/deliveries. */
export const DeliveriesQuery = Type.Object({
  cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$', description: 'next_cursor of the previous page; absent: the first page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'payments per page' }))
})

export const ReputationDelivery = Type.Object({
  signature: Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{64,88}$', description: 'the payment transaction: read it on chain to see the payer, the amount and payTo' }),
  network: Type.String({ description: 'CAIP-2 id of the chain the transaction is on' }),
  service: Type.String({ description: 'name of the paid service, as in the manifest' }),
  price: BaseUnits,
  resource_hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the resource bought (path and query, or the tool URL): a buyer can match its own purchase without the list showing what others bought' }),
  outcome: Type.String({ description: 'DELIVERED, or the error code the request ended with' }),
  at: IsoDateTime
}, { $id: 'ReputationDelivery', additionalProperties: false })

/** Body of GET /reputation/deliveries. */
export const ReputationDeliveries = Type.Object({
  deliveries: Type.Array(ref(ReputationDelivery), { description: 'verified payments, oldest first (the audit log\'s retention)' }),
  next_cursor: Nullable(Type.String({ description: 'cursor of the next page; null on the last page' }))
}, {
  $id: 'ReputationDeliveries',
  additionalProperties: false,
  description: 'The evidence behind /reputation: every verified payment of the audit log with its outcome. Each DELIVERED entry names a transaction that landed and paid the price to payTo.'
})
