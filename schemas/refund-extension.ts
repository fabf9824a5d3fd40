import { Type } from '@sinclair/typebox'

/**
 * extensions.refund of the 402 (x402's refund extension proposal), as the manifest repeats it when
 * REFUNDS is on. No $id: it is part of the manifest's model, present on every merchant, while the
 * refund endpoint's own models are registered only when refunds are on (schemas/refunds.ts).
 */
export const RefundExtensionBody = Type.Object({
  info: Type.Object({
    refundEndpoint: Type.String({ format: 'uri', description: 'where POST refund requests go', examples: ['https://merchant.example/api/refunds'] }),
    windowSeconds: Type.Integer({ minimum: 1, description: 'how long after a payment landed its refund may be asked for, in seconds' }),
    partialRefunds: Type.Literal(false, { description: 'a refund returns the whole amount settled' })
  }, { additionalProperties: false })
}, { additionalProperties: false, description: 'present when the merchant refunds payments never delivered: the 402\'s extensions.refund, the same object (additive)' })
