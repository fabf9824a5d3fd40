import { Type } from '@sinclair/typebox'

export const PaymentRequirement = Type.Object({
  scheme: Type.Literal('exact'),
  network: Type.String({ description: 'x402 network name', examples: ['solana-devnet'] }),
  maxAmountRequired: Type.String({ pattern: '^[0-9]+$', description: 'price in base units of the payment token', examples: ['50000'] }),
  resource: Type.String({ format: 'uri', description: 'absolute URL of the requested resource' }),
  description: Type.String(),
  mimeType: Type.String(),
  payTo: Type.String({ description: 'wallet that must receive the payment (owner of the receiving token account)' }),
  maxTimeoutSeconds: Type.Integer({ description: 'oldest payment accepted, in seconds since its block time' }),
  asset: Type.String({ description: 'mint of the payment token' }),
  extra: Type.Object({
    amount: Type.String({ description: 'price in token units', examples: ['0.05'] }),
    symbol: Type.String({ examples: ['USDC'] }),
    decimals: Type.Integer({ examples: [6] }),
    recipientTokenAccount: Type.Optional(Type.String({ description: "payTo's associated token account for the mint" })),
    proofHeaders: Type.Object({
      signature: Type.String({ examples: ['x-payment-signature'] }),
      wallet: Type.String({ examples: ['x-payment-wallet'] })
    }, { description: 'headers to send with the repeated request' }),
    solanaPayUrl: Type.String({ description: 'Solana Pay transfer request for the payment' })
  })
}, { $id: 'PaymentRequirement' })

export const PaymentRequired = Type.Object({
  statusCode: Type.Integer({ examples: [402] }),
  error: Type.String({ examples: ['Payment Required'] }),
  message: Type.String({ description: 'what is missing or wrong' }),
  code: Type.String({
    description: 'PAYMENT_REQUIRED, INVALID_PAYMENT_HEADER, PAYMENT_NOT_FOUND, PAYMENT_FAILED, PAYER_MISMATCH, AMOUNT_TOO_LOW, PAYMENT_EXPIRED, PAYMENT_ALREADY_USED or PAYMENT_IN_PROGRESS'
  }),
  requestId: Type.String(),
  x402Version: Type.Literal(1),
  accepts: Type.Array(Type.Ref('PaymentRequirement'))
}, { $id: 'PaymentRequired', additionalProperties: true, description: 'x402 v1 payment requirements (402 body), in the common error shape' })
