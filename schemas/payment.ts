import { Type } from '@sinclair/typebox'
import { PAYMENT_HEADERS, PROOF_PAYER_RULE, X402_HEADERS } from './payment-headers.js'
import { PaymentRequiredCodes } from './responses.js'

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
      wallet: Type.String({ examples: ['x-payment-wallet'] }),
      walletSignature: Type.String({ examples: ['x-payment-wallet-signature'], description: 'the payer\'s base58 ed25519 signature over "token-merchant proof <signature> <METHOD> <path>"' })
    }, { description: 'headers to send with the repeated request' }),
    walletSignatureRequired: Type.Boolean({ description: 'whether proofs must carry the wallet signature; a present one is always checked' }),
    payerRule: Type.String({ description: 'who may be named in x-payment-wallet' }),
    redelivery: Type.Union([Type.Literal('payment'), Type.Literal('buyer-only')], { description: 'who gets a lost answer again: whoever brings the payment, or only its buyer (wallet signature)' }),
    solanaPayUrl: Type.String({ description: 'Solana Pay transfer request for the payment' }),
    feePayer: Type.Optional(Type.String({ description: 'x402 exact scheme: the fee payer the transaction must name; the merchant co-signs as it and pays the fee' }))
  })
}, { $id: 'PaymentRequirement' })

export const PaymentRequired = Type.Object({
  statusCode: Type.Literal(402),
  error: Type.String({ examples: ['Payment Required'] }),
  message: Type.String({ description: 'what is missing or wrong' }),
  code: PaymentRequiredCodes,
  requestId: Type.String(),
  x402Version: Type.Literal(1),
  accepts: Type.Array(Type.Ref('PaymentRequirement'))
}, { $id: 'PaymentRequired', additionalProperties: true, description: 'x402 v1 payment requirements (402 body), in the common error shape' })

/**
 * The proof headers as optional request headers: documented (generated clients send them as typed
 * header params) but not validated here, so a malformed proof is the gate's 402
 * INVALID_PAYMENT_HEADER with the requirements, not a bare 400.
 */
export const PROOF_HEADERS = Type.Object({
  [PAYMENT_HEADERS.signature]: Type.Optional(Type.String({ description: 'base58 signature of the payment transaction (pay-then-prove)' })),
  [PAYMENT_HEADERS.wallet]: Type.Optional(Type.String({ description: `base58 public key of the wallet that signed and paid. ${PROOF_PAYER_RULE}` })),
  [PAYMENT_HEADERS.walletSignature]: Type.Optional(Type.String({ description: 'the payer\'s base58 ed25519 signature over the UTF-8 text "token-merchant proof <signature> <METHOD> <path>": binds the proof to this request' })),
  [X402_HEADERS.paymentV1]: Type.Optional(Type.String({ description: 'x402 v1 payment (standard flow): base64 JSON PaymentPayload with the payer-signed exact transaction' })),
  [X402_HEADERS.paymentV2]: Type.Optional(Type.String({ description: 'x402 v2 payment (standard flow): base64 JSON PaymentPayload with the payer-signed exact transaction' }))
})
