/**
 * Stable codes of the buyer client. Each says whether money moved:
 * - nothing was paid: INVALID_INPUT, HTTP_UNREACHABLE, UNEXPECTED_RESPONSE, REQUEST_FAILED, REQUIREMENTS_MISMATCH,
 *   SPENDING_LIMIT, UNSUPPORTED_MINT, RECIPIENT_ACCOUNT_MISSING, INSUFFICIENT_FUNDS, RPC_UNAVAILABLE,
 *   PAYMENT_SEND_FAILED (the transaction never landed)
 * - a fee was spent, no tokens moved: PAYMENT_FAILED
 * - the payment may have landed or did land: PAYMENT_UNCONFIRMED, DELIVERY_FAILED; both carry the
 *   signature, which buys the delivery again (`buy(url, { paidSignature })`) without paying twice.
 */
export type BuyerErrorCode =
  | 'INVALID_INPUT'
  | 'HTTP_UNREACHABLE'
  | 'UNEXPECTED_RESPONSE'
  | 'REQUEST_FAILED'
  | 'REQUIREMENTS_MISMATCH'
  | 'SPENDING_LIMIT'
  | 'UNSUPPORTED_MINT'
  | 'RECIPIENT_ACCOUNT_MISSING'
  | 'INSUFFICIENT_FUNDS'
  | 'RPC_UNAVAILABLE'
  | 'PAYMENT_SEND_FAILED'
  | 'PAYMENT_FAILED'
  | 'PAYMENT_UNCONFIRMED'
  | 'DELIVERY_FAILED'

export interface BuyerErrorDetails {
  /** The payment's transaction signature, once one exists. */
  signature?: string
  /** HTTP status of the merchant's last answer. */
  status?: number
  /** The merchant's error code (its `code` field), when it gave one. */
  serverCode?: string
  /** One sentence per problem found, for REQUIREMENTS_MISMATCH. */
  problems?: string[]
  [key: string]: unknown
}

export class BuyerError extends Error {
  constructor (readonly code: BuyerErrorCode, message: string, readonly details: BuyerErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BuyerError'
  }

  get signature (): string | undefined {
    return this.details.signature
  }
}

export function isBuyerError (error: unknown, code?: BuyerErrorCode): error is BuyerError {
  return error instanceof BuyerError && (code === undefined || error.code === code)
}
