import { Type } from '@sinclair/typebox'
import { BaseUnits, SolanaAddress } from './common.js'

const Base58 = (min: number, max: number, description: string) => Type.String({ pattern: `^[1-9A-HJ-NP-Za-km-z]{${min},${max}}$`, description })

/** Body of POST /api/refunds, in the shape of x402's refund extension proposal (plus `payer`, whose signature is checked before anything is read). */
export const RefundRequest = Type.Object({
  x402Version: Type.Integer({ minimum: 1, maximum: 2, description: 'the x402 version the payment was made under (any door: pay-then-prove payments too)' }),
  paymentReference: Type.Object({
    txHash: Base58(64, 88, 'the payment\'s transaction signature'),
    network: Type.String({ minLength: 1, maxLength: 64, description: 'the network the payment was made on, x402 spelling (v1 name or CAIP-2)', examples: ['solana-devnet'] }),
    paymentId: Type.Optional(Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', description: 'the x402 payment-identifier it was made under, if any (informative)' }))
  }, { additionalProperties: false }),
  payer: { ...SolanaAddress, description: 'the paying wallet: the owner of the token account the payment left, which signs this request' },
  amount: { ...BaseUnits, description: 'base units to refund: the whole amount the merchant received (partialRefunds is false)' },
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'why, in the buyer\'s words (kept with the refund)' }),
  idempotencyKey: Type.String({ minLength: 8, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$', description: 'the same key asks about the same refund again; a refund is made once per payment whatever the key' }),
  payerSignature: Base58(64, 90, 'the payer wallet\'s ed25519 signature (base58) over the UTF-8 bytes of "token-merchant refund <txHash> <amount> <idempotencyKey>"')
}, { $id: 'RefundRequest', additionalProperties: false })

/** Answer of POST /api/refunds: executed (200), pending (202: asked again with the same key, it is followed up) or denied (200). */
export const RefundAnswer = Type.Object({
  status: Type.Union([Type.Literal('executed'), Type.Literal('pending'), Type.Literal('denied')]),
  refundTxHash: Type.Optional(Type.String({ description: 'the refund\'s transaction signature (a TransferChecked back to the paying token account)' })),
  refundReceipt: Type.Optional(Type.Object({
    format: Type.Literal('jws'),
    signature: Type.String({ description: 'compact JWS (EdDSA, kid in /.well-known/did.json) of { version, kind: "refund", network, payment, refundTransaction, payer, amount, issuedAt }' })
  })),
  denialReason: Type.Optional(Type.Union(['outside_window', 'not_payer', 'already_refunded', 'amount_exceeds_settled', 'delivered', 'unknown_payment'].map(reason => Type.Literal(reason))))
}, { $id: 'RefundAnswer', additionalProperties: false })
