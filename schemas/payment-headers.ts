// The header names of the payment exchange are part of the wire contract: the schemas describe
// them, and lib/ reads and writes them from here.

/** The HTTP headers of the payment exchange, lower-case as Node presents them. */
export const PAYMENT_HEADERS = {
  signature: 'x-payment-signature',
  wallet: 'x-payment-wallet',
  walletSignature: 'x-payment-wallet-signature',
  receipt: 'x-payment-response',
  /** "true" on an answer served again to a payment that had already bought it (a lost answer; nothing charged again). */
  redelivered: 'x-payment-redelivered'
} as const

/** The x402 HTTP headers, lower-case as Node presents them. */
export const X402_HEADERS = {
  /** v1 payment: base64 JSON PaymentPayload */
  paymentV1: 'x-payment',
  /** v2 payment: base64 JSON PaymentPayload */
  paymentV2: 'payment-signature',
  /** v2 challenge: base64 JSON PaymentRequired */
  paymentRequired: 'payment-required',
  /** v1 receipt */
  responseV1: 'x-payment-response',
  /** v2 receipt */
  responseV2: 'payment-response'
} as const

/**
 * Who a pay-then-prove proof may name as the payer (x-payment-wallet), said where buyers look
 * before paying (the 402's extra, the manifest, the OpenAPI header), so nobody pays in a way that
 * cannot redeem.
 */
export const PROOF_PAYER_RULE = 'x-payment-wallet names a wallet that signed the payment transaction and either owns the token account that paid, ' +
  'is a signing member of its owner multisig (or the multisig itself), or moved the tokens as their delegate (then x-payment-wallet-signature is required). ' +
  'Tokens owned by a program address (PDA) pay through a delegate it approved.'
