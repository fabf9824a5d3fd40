import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { BuyerError } from './errors.js'

/**
 * The parts of the merchant's documents the client relies on, checked on arrival so a malformed
 * answer is one clear error instead of a crash later. Extra fields are allowed (and kept): a newer
 * merchant may add some.
 */

export const ManifestServiceShape = Type.Object({
  name: Type.String(),
  description: Type.String(),
  endpoint: Type.String({ description: 'path template, e.g. /api/fetch-price/:token' }),
  method: Type.String(),
  price: Type.Integer({ minimum: 0, description: 'base units of the payment token' }),
  price_display: Type.String(),
  payment_token: Type.String(),
  payment_network: Type.String(),
  mcp_tool: Type.Optional(Type.String({ description: 'the MCP tool that sells the same service' }))
})

export const ManifestShape = Type.Object({
  name: Type.String(),
  description: Type.String(),
  version: Type.String(),
  services: Type.Array(ManifestServiceShape),
  reputation_url: Type.String(),
  payment_address: Type.String(),
  payment_mint: Type.String(),
  payment_decimals: Type.Integer({ minimum: 0, maximum: 255 }),
  network: Type.String(),
  registry_url: Type.Optional(Type.String()),
  openapi_url: Type.Optional(Type.String()),
  mcp_url: Type.Optional(Type.String({ description: 'the MCP endpoint (streamable HTTP)' }))
})

export const RegisteredAgentShape = Type.Object({
  name: Type.String(),
  manifest_url: Type.String(),
  wallet: Type.String(),
  signature: Type.String(),
  timestamp: Type.Union([Type.Integer(), Type.Null()])
})

export const RegistryListingShape = Type.Object({
  network: Type.String(),
  registry_address: Type.String(),
  agents: Type.Array(RegisteredAgentShape),
  total: Type.Integer({ minimum: 0 }),
  fetched_at: Type.String()
})

export const PaymentRequirementShape = Type.Object({
  scheme: Type.String(),
  network: Type.String(),
  maxAmountRequired: Type.String({ pattern: '^[0-9]{1,30}$' }),
  resource: Type.String(),
  description: Type.String(),
  mimeType: Type.String(),
  payTo: Type.String(),
  maxTimeoutSeconds: Type.Integer(),
  asset: Type.String(),
  extra: Type.Optional(Type.Object({
    amount: Type.Optional(Type.String()),
    symbol: Type.Optional(Type.String()),
    decimals: Type.Optional(Type.Integer()),
    recipientTokenAccount: Type.Optional(Type.String()),
    proofHeaders: Type.Optional(Type.Object({ signature: Type.String(), wallet: Type.String() })),
    solanaPayUrl: Type.Optional(Type.String())
  }))
})

/** The 402 body: x402 v1 requirements in the service's error shape. */
export const PaymentRequiredShape = Type.Object({
  x402Version: Type.Literal(1),
  accepts: Type.Array(PaymentRequirementShape, { minItems: 1 }),
  code: Type.Optional(Type.String()),
  message: Type.Optional(Type.String())
})

/** The decoded x-payment-response header. */
export const PaymentReceiptShape = Type.Object({
  success: Type.Boolean(),
  transaction: Type.String(),
  network: Type.String(),
  payer: Type.String()
})

const Rate = Type.Union([Type.Number(), Type.Null()])

export const ReputationServiceShape = Type.Object({
  service: Type.String(),
  requests: Type.Integer(),
  transactions: Type.Integer(),
  deliveries: Type.Integer(),
  success_rate: Rate,
  avg_latency_ms: Rate,
  p95_latency_ms: Rate
})

/** GET /reputation: trust signals from the merchant's audit log. */
export const ReputationShape = Type.Object({
  merchant: Type.Object({ name: Type.String(), payment_address: Type.String() }),
  window: Type.String(),
  computed_at: Type.String(),
  requests: Type.Integer(),
  transactions: Type.Integer(),
  deliveries: Type.Integer(),
  success_rate: Rate,
  failures: Type.Record(Type.String(), Type.Integer()),
  unique_payers: Type.Integer(),
  revenue: Type.Object({ base_units: Type.String(), token_units: Type.String(), token: Type.String() }),
  services: Type.Array(ReputationServiceShape),
  first_activity: Type.Union([Type.String(), Type.Null()]),
  last_activity: Type.Union([Type.String(), Type.Null()])
})

export type Manifest = Static<typeof ManifestShape>
export type ManifestService = Static<typeof ManifestServiceShape>
export type RegisteredAgent = Static<typeof RegisteredAgentShape>
export type RegistryListing = Static<typeof RegistryListingShape>
export type PaymentRequirement = Static<typeof PaymentRequirementShape>
export type PaymentReceipt = Static<typeof PaymentReceiptShape>
export type Reputation = Static<typeof ReputationShape>

/** The value, typed, or UNEXPECTED_RESPONSE naming the first field that is wrong. */
export function parseDocument<T extends TSchema> (schema: T, value: unknown, what: string): Static<T> {
  if (Value.Check(schema, value)) return value
  const first = Value.Errors(schema, value).First()
  const where = first === undefined || first.path === '' ? '' : ` at ${first.path}`
  throw new BuyerError('UNEXPECTED_RESPONSE', `${what} is malformed${where}${first === undefined ? '' : `: ${first.message}`}`)
}
