import { Type, type Static } from '@sinclair/typebox'
import { EXAMPLE_RESOURCES } from './examples.js'

/** GET /.well-known/x402: the paid resources for x402 crawlers (x402scan's MCP discovery and older directories). */
export const X402WellKnown = Type.Object({
  version: Type.Literal(1),
  resources: Type.Array(Type.String({ format: 'uri' }), {
    description: 'one example URL per product; each answers 402 with its terms',
    examples: [EXAMPLE_RESOURCES]
  }),
  instructions: Type.String({ description: 'how to buy, in a few sentences' })
}, { $id: 'X402WellKnown', additionalProperties: false, description: 'x402 discovery document (/.well-known/x402)' })

export type X402WellKnownBody = Static<typeof X402WellKnown>
