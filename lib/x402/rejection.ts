import type { PaymentErrorCode } from '../payment/payment-error.js'

/** Why an x402 payment was refused: a stable code from the error table and a message for the buyer. */
export interface X402Rejection {
  code: PaymentErrorCode
  message: string
  /** Set for answers that say "try again later" (503, 409). */
  retryAfterSeconds?: number
}
