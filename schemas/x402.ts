import { Type } from '@sinclair/typebox'
import { USDC_DEVNET_MINT } from './networks.js'
import { EXAMPLE_PRODUCT } from './examples.js'

/**
 * What the x402 headers carry once base64-decoded: PAYMENT-REQUIRED (v2 PaymentRequired),
 * PAYMENT-RESPONSE / X-PAYMENT-RESPONSE (SettleResponse) and PAYMENT-SIGNATURE / X-PAYMENT (the
 * PaymentPayload). Named components of the OpenAPI document, linked from the headers (through
 * `contentEncoding`, `contentMediaType` and `contentSchema`), so a client knows what it decodes.
 * What we send is pinned down; the x402 specification owns the rest (additional properties allowed).
 */

export const X402PaymentRequirements = Type.Object({
  scheme: Type.Literal('exact'),
  network: Type.String({ description: 'CAIP-2 network id', examples: ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'] }),
  amount: Type.String({ pattern: '^[0-9]+$', description: 'price in base units of the asset', examples: ['50000'] }),
  asset: Type.String({ description: 'mint of the payment token', examples: [USDC_DEVNET_MINT] }),
  payTo: Type.String({ description: 'wallet that receives the payment (owner of the receiving token account)' }),
  maxTimeoutSeconds: Type.Integer({ description: 'how long the payment may take' }),
  extra: Type.Object({
    feePayer: Type.String({ description: 'the merchant\'s fee payer: the transaction names it as fee payer, the merchant co-signs' })
  }, { additionalProperties: true })
}, { $id: 'X402PaymentRequirements', additionalProperties: true, description: 'x402 v2 payment requirements: one way to pay (exact scheme, Solana)' })

export const X402PaymentRequired = Type.Object({
  x402Version: Type.Literal(2),
  error: Type.Optional(Type.String({ description: 'why payment is asked (again)' })),
  resource: Type.Object({
    url: Type.String({ description: 'the resource being bought (this request\'s URL; mcp://tool/<name> for an MCP tool)' }),
    description: Type.Optional(Type.String()),
    mimeType: Type.Optional(Type.String())
  }, { additionalProperties: true }),
  accepts: Type.Array(Type.Ref('X402PaymentRequirements'), { minItems: 1 }),
  extensions: Type.Optional(Type.Object({
    bazaar: Type.Optional(Type.Object({
      info: Type.Object({}, { additionalProperties: true, description: 'input (method, path and query parameters, or MCP tool) and output example' }),
      schema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of `info`' }),
      routeTemplate: Type.Optional(Type.String({ examples: [EXAMPLE_PRODUCT.path] }))
    }, { additionalProperties: true, description: 'x402 bazaar discovery metadata (specs/extensions/bazaar.md)' }))
  }, { additionalProperties: true }))
}, { $id: 'X402PaymentRequired', additionalProperties: true, description: 'x402 v2 PaymentRequired: the base64 JSON of the PAYMENT-REQUIRED header' })

export const X402SettleResponse = Type.Object({
  success: Type.Boolean(),
  transaction: Type.String({ description: 'signature of the payment transaction' }),
  network: Type.String({ description: 'CAIP-2 id (PAYMENT-RESPONSE) or x402 v1 network name (X-PAYMENT-RESPONSE)' }),
  payer: Type.Optional(Type.String({ description: 'wallet that paid' }))
}, { $id: 'X402SettleResponse', additionalProperties: true, description: 'x402 SettleResponse: the base64 JSON of the PAYMENT-RESPONSE and X-PAYMENT-RESPONSE receipt headers' })

export const X402PaymentPayload = Type.Object({
  x402Version: Type.Union([Type.Literal(1), Type.Literal(2)], { description: '2 in PAYMENT-SIGNATURE, 1 in X-PAYMENT' }),
  accepted: Type.Optional(Type.Ref('X402PaymentRequirements', { description: 'v2: the requirements chosen from `accepts`, as sent' })),
  resource: Type.Optional(Type.Object({ url: Type.String() }, { additionalProperties: true, description: 'v2: the resource of the PaymentRequired' })),
  scheme: Type.Optional(Type.Literal('exact', { description: 'v1' })),
  network: Type.Optional(Type.String({ description: 'v1: the x402 network name' })),
  payload: Type.Object({
    transaction: Type.String({ description: 'base64 of the payer-signed transaction (one TransferChecked of the price to payTo\'s token account, fee payer = extra.feePayer)' })
  }, { additionalProperties: true }),
  extensions: Type.Optional(Type.Object({}, { additionalProperties: true }))
}, { $id: 'X402PaymentPayload', additionalProperties: true, description: 'x402 PaymentPayload: the base64 JSON of the PAYMENT-SIGNATURE (v2) and X-PAYMENT (v1) headers' })
