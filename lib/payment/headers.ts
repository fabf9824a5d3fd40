/** The HTTP headers of the payment exchange, lower-case as Node presents them. */
export const PAYMENT_HEADERS = {
  signature: 'x-payment-signature',
  wallet: 'x-payment-wallet',
  walletSignature: 'x-payment-wallet-signature',
  receipt: 'x-payment-response'
} as const
