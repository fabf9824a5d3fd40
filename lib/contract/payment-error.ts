import type { ErrorCode } from '../errors/error-codes.js'

/** Codes a buyer can act on; every one answers with the payment requirements again. */
export type PaymentErrorCode = Extract<ErrorCode,
  | 'PAYMENT_REQUIRED'
  | 'INVALID_PAYMENT_HEADER'
  | 'PAYMENT_NOT_FOUND'
  | 'PAYMENT_FAILED'
  | 'PAYER_MISMATCH'
  | 'AMOUNT_TOO_LOW'
  | 'AMOUNT_NOT_EXACT'
  | 'PAYMENT_EXPIRED'
  | 'PAYMENT_ALREADY_USED'
  | 'PAYMENT_FLOW_MISMATCH'
  | 'WALLET_SIGNATURE_REQUIRED'
  | 'WALLET_SIGNATURE_INVALID'
  | 'PAYMENT_IN_PROGRESS'
  | 'PAYMENT_FORMS_CONFLICT'
  | 'RPC_UNAVAILABLE'
  | `X402_${string}`
  | `MPP_${string}`>
