import { Type, type Static } from '@sinclair/typebox'

/** GET /.well-known/x402: the paid resources for x402 crawlers (x402scan's MCP discovery and older directories). */
export const X402WellKnown = Type.Object({
  version: Type.Literal(1),
  resources: Type.Array(Type.String({ format: 'uri' }), {
    description: 'one example URL per product; each answers 402 with its terms',
    examples: [['https://merchant.example/api/fetch-price/SOL', 'https://merchant.example/api/analyze-token/7EYnhQoR9YM3N7UoaKRoA44Uy8JeaZV3qyouov87awMs']]
  }),
  instructions: Type.String({ description: 'how to buy, in a few sentences' })
}, { $id: 'X402WellKnown', additionalProperties: false, description: 'x402 discovery document (/.well-known/x402)' })

export type X402WellKnownBody = Static<typeof X402WellKnown>
