import { Type, type Static } from '@sinclair/typebox'
import { EXAMPLE_PRODUCT } from './examples.js'

// The names an MCP message carries are part of the wire contract: the MCP door writes and reads
// them, the documents (lib/manifest) name them, the client reads them, all from here.

/** Header of the MCP session (streamable HTTP): the SDK client sends back the id the initialize answer gave it. */
export const MCP_SESSION_HEADER = 'mcp-session-id'

/** Key of the PaymentPayload in a tools/call request's `params._meta` (x402 v2 MCP transport). */
export const X402_PAYMENT_META_KEY = 'x402/payment'

/** Key of the SettlementResponse in a paid tool result's `_meta` (x402 v2 MCP transport). */
export const X402_PAYMENT_RESPONSE_META_KEY = 'x402/payment-response'

/** Set (true) in a paid tool result's `_meta` when the result is a kept answer served again to the payment that bought it: nothing was charged. */
export const REDELIVERED_META_KEY = 'token-merchant/redelivered'

/**
 * x402 v2 PaymentRequired as an MCP paid tool returns it (tool-result binding): `structuredContent`
 * of a result with `isError: true`. Only what a client needs to recognise and answer it is pinned
 * down; the x402 specification owns the rest.
 */
export const ToolPaymentRequired = Type.Object({
  x402Version: Type.Literal(2),
  error: Type.Optional(Type.String({ description: 'why payment is asked again: what was wrong with the payment sent, if any' })),
  code: Type.Optional(Type.String({ description: 'why payment is asked again: PAYMENT_REQUIRED, or the stable code of what was wrong with the payment sent' })),
  retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 0, description: 'send the same payment again after this many seconds' })),
  resource: Type.Object({
    url: Type.String({ description: `the tool, e.g. mcp://tool/${EXAMPLE_PRODUCT.tool}` }),
    description: Type.Optional(Type.String()),
    mimeType: Type.Optional(Type.String())
  }, { additionalProperties: true }),
  accepts: Type.Array(Type.Object({
    scheme: Type.String({ examples: ['exact'] }),
    network: Type.String({ description: 'CAIP-2 network id', examples: ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'] }),
    amount: Type.String({ pattern: '^[0-9]+$', description: 'price in base units of the asset' }),
    asset: Type.String({ description: 'mint of the payment token' }),
    payTo: Type.String({ description: 'wallet that receives the payment' }),
    maxTimeoutSeconds: Type.Integer(),
    extra: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'scheme data, e.g. `feePayer` for Solana exact' }))
  }, { additionalProperties: true }), { minItems: 1 }),
  extensions: Type.Optional(Type.Object({}, { additionalProperties: true }))
}, { additionalProperties: true, description: 'x402 v2 PaymentRequired: pay one of `accepts`, then call again with the PaymentPayload in params._meta["x402/payment"]' })

export type ToolPaymentRequiredBody = Static<typeof ToolPaymentRequired>
