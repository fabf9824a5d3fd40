import { Type } from '@sinclair/typebox'
import { BaseUnits, SolanaAddress } from './common.js'
import { EXAMPLE_PRODUCT } from './examples.js'

/** Body of POST /api/x402/prepare: which resource, bought by which wallet. */
export const PreparePaymentRequest = Type.Object({
  resource: Type.String({ minLength: 1, maxLength: 2048, description: 'the URL of a paid resource of this merchant, as its 402 names it (PAYMENT-REQUIRED `resource.url`)', examples: [EXAMPLE_PRODUCT.resource] }),
  buyer: { ...SolanaAddress, description: 'the wallet that signs the transfer (the token owner)' }
}, { $id: 'PreparePaymentRequest', additionalProperties: false })

/** Answer of POST /api/x402/prepare: the unsigned x402 `exact` transaction and the buyer's balance. */
export const PreparedPayment = Type.Object({
  transaction: Type.String({ description: 'base64 wire transaction (v0), unsigned: compute budget, one TransferChecked of exactly the price from the buyer\'s associated token account to payTo\'s, a memo nonce, the merchant\'s fee payer, a recent blockhash. The wallet signs it (solana:signTransaction) and the page repeats the request with it in PAYMENT-SIGNATURE' }),
  buyer: SolanaAddress,
  balance: { ...BaseUnits, description: 'the buyer\'s balance of the payment token, base units (0 without a token account)' },
  price: { ...BaseUnits, description: 'the price of the resource, base units' },
  decimals: Type.Integer({ minimum: 0, maximum: 255 }),
  symbol: Type.String({ description: 'symbol of the payment token', examples: ['USDC'] }),
  enough: Type.Boolean({ description: 'balance ≥ price: a transfer with less would fail' }),
  lastValidBlockHeight: Type.String({ pattern: '^[0-9]+$', description: 'block height after which the transaction can no longer land: prepare again' })
}, { $id: 'PreparedPayment', additionalProperties: false })
