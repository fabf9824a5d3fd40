import { Type, type Static } from '@sinclair/typebox'
import { SolanaAddress } from './common.js'
import { RefundExtensionBody } from './refund-extension.js'
import { EXAMPLE_PRODUCT } from './examples.js'

export const ManifestService = Type.Object({
  name: Type.String({ examples: [EXAMPLE_PRODUCT.name] }),
  description: Type.String(),
  endpoint: Type.String({ description: 'path template of the paid route', examples: [EXAMPLE_PRODUCT.path] }),
  method: Type.Literal('GET'),
  price: Type.Integer({ minimum: 0, description: 'price in base units of the payment token', examples: [50000] }),
  price_display: Type.String({ description: 'the price in token units, exact decimal text', examples: ['0.05'] }),
  payment_token: Type.String({ description: 'symbol of the payment token', examples: ['USDC'] }),
  payment_network: Type.String({ description: 'network in x402 form: solana, solana-devnet, solana-testnet or solana-localnet', examples: ['solana-devnet'] }),
  data_network: Type.Optional(Type.String({
    description: 'Solana cluster the tokens this service describes live on (mainnet-beta, devnet, testnet or localnet); may differ from payment_network (additive)',
    examples: ['mainnet-beta']
  })),
  mcp_tool: Type.Optional(Type.String({
    description: 'name of the MCP tool that sells this service at the same price, on the endpoint in `mcp_url` (additive)',
    examples: [EXAMPLE_PRODUCT.tool]
  }))
}, { $id: 'ManifestService', additionalProperties: false })

export const Manifest = Type.Object({
  name: Type.String(),
  description: Type.String(),
  version: Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$', examples: ['0.1.0'] }),
  services: Type.Array(Type.Ref('ManifestService')),
  reputation_url: Type.String({ format: 'uri', description: 'absolute URL of GET /reputation' }),
  payment_address: SolanaAddress,
  payment_mint: Type.String({ description: 'mint of the payment token (additive)' }),
  payment_decimals: Type.Integer({ description: 'decimals of the payment token (additive)', examples: [6] }),
  network: Type.String({ description: 'Solana cluster name (additive)', examples: ['devnet'] }),
  registry_url: Type.String({ format: 'uri', description: 'absolute URL of GET /registry (additive)' }),
  openapi_url: Type.String({ format: 'uri', description: 'absolute URL of the OpenAPI document (additive)' }),
  mcp_url: Type.String({
    format: 'uri',
    description: 'absolute URL of the MCP endpoint (streamable HTTP). The same products as tools, paid through x402\'s MCP transport (additive)'
  }),
  a2a_card_url: Type.Optional(Type.String({ format: 'uri', description: 'absolute URL of the A2A agent card (additive)' })),
  mcp_bridge: Type.String({
    description: 'the command an MCP host runs to buy these tools over stdio. Paid by the buyer\'s wallet within its limits (the token-merchant client; add --keypair) (additive)',
    examples: ['token-merchant mcp --merchant http://localhost:3000']
  }),
  proof_wallet_signature: Type.Optional(Type.Union([Type.Literal('required'), Type.Literal('optional')], {
    description: 'whether pay-then-prove proofs must carry x-payment-wallet-signature. A present one is always checked (additive)'
  })),
  payment_methods: Type.Optional(Type.Array(Type.Union([Type.Literal('x402'), Type.Literal('pay-then-prove'), Type.Literal('mpp')]), {
    description: 'the ways to pay a paid route over HTTP; mpp: the Solana charge (additive)'
  })),
  proof_payer_rule: Type.Optional(Type.String({ description: 'who may be named in x-payment-wallet (additive)' })),
  redelivery: Type.Optional(Type.Union([Type.Literal('payment'), Type.Literal('buyer-only')], {
    description: 'who gets a lost answer again: whoever brings the payment, or only its buyer (additive)'
  })),
  refund: Type.Optional(RefundExtensionBody)
}, { $id: 'Manifest', additionalProperties: false, description: 'The merchant manifest served at /.well-known/agent.json' })

export type ManifestBody = Static<typeof Manifest> & { services: Array<Static<typeof ManifestService>> }
