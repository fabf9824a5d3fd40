import { isSolanaError } from '@solana/kit'
import { InvalidRegistrationError } from '../../lib/registry/registration-memo.js'
import { isRpcUnavailable } from '../../lib/solana/rpc-errors.js'
import { BuyerError } from '../errors.js'
import { RegistrationExpiredError, RegistrationFailedError } from '../register.js'

/** Exit codes of the CLI; scripts can branch on them (docs/client.md lists them). */
export const EXIT = {
  OK: 0,
  /** Bad arguments, an unreadable keypair file, an invalid registration, a keygen file that exists, a configuration check that failed. */
  USAGE: 1,
  /** The merchant, registry or Solana RPC could not be reached, failed (5xx) or answered nonsense. */
  NETWORK: 2,
  /** The spending guard refused the price (--max-price); nothing was paid. */
  SPENDING_LIMIT: 3,
  /** Paid, or possibly paid, but nothing delivered: retry with --signature <the printed signature>. */
  PAID_NOT_DELIVERED: 4,
  /** The merchant refused the request itself before any payment (4xx, e.g. an unknown token), or
   *  said the payment given with --signature already bought its delivery (PAYMENT_ALREADY_USED). */
  REQUEST_REFUSED: 5,
  /** No payment or registration was made: terms differ from the manifest, no recipient account,
   *  insufficient funds, unsupported mint, or the transaction was refused, failed or expired. */
  NOT_PAID: 6,
  /** A bug: an error nobody anticipated (the message is printed, never a stack trace). */
  INTERNAL: 70
} as const

/** Errors of the CLI's own argument checks. */
export class UsageError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

const BY_BUYER_CODE: Record<BuyerError['code'], number> = {
  INVALID_INPUT: EXIT.USAGE,
  HTTP_UNREACHABLE: EXIT.NETWORK,
  UNEXPECTED_RESPONSE: EXIT.NETWORK,
  RPC_UNAVAILABLE: EXIT.NETWORK,
  REQUEST_FAILED: EXIT.REQUEST_REFUSED,
  SPENDING_LIMIT: EXIT.SPENDING_LIMIT,
  REQUIREMENTS_MISMATCH: EXIT.NOT_PAID,
  UNSUPPORTED_MINT: EXIT.NOT_PAID,
  RECIPIENT_ACCOUNT_MISSING: EXIT.NOT_PAID,
  INSUFFICIENT_FUNDS: EXIT.NOT_PAID,
  PAYMENT_SEND_FAILED: EXIT.NOT_PAID,
  PAYMENT_FAILED: EXIT.NOT_PAID,
  PAYMENT_UNCONFIRMED: EXIT.PAID_NOT_DELIVERED,
  DELIVERY_FAILED: EXIT.PAID_NOT_DELIVERED
}

/** The exit code and a stable code name for any error a command can end with. */
export function classify (error: unknown): { exitCode: number, code: string } {
  if (error instanceof UsageError) return { exitCode: EXIT.USAGE, code: 'USAGE' }
  if (error instanceof BuyerError) {
    const serverFailed = error.code === 'REQUEST_FAILED' && (error.details.status ?? 0) >= 500
    // The merchant says this payment already bought its delivery: retrying it would loop for ever.
    if (error.details.serverCode === 'PAYMENT_ALREADY_USED') return { exitCode: EXIT.REQUEST_REFUSED, code: error.code }
    return { exitCode: serverFailed ? EXIT.NETWORK : BY_BUYER_CODE[error.code], code: error.code }
  }
  if (error instanceof InvalidRegistrationError) return { exitCode: EXIT.USAGE, code: 'INVALID_REGISTRATION' }
  if (error instanceof RegistrationFailedError) return { exitCode: EXIT.NOT_PAID, code: 'REGISTRATION_FAILED' }
  if (error instanceof RegistrationExpiredError) return { exitCode: EXIT.NOT_PAID, code: 'REGISTRATION_EXPIRED' }
  if (isRpcUnavailable(error)) return { exitCode: EXIT.NETWORK, code: 'RPC_UNAVAILABLE' }
  // The node answered, and refused: a failed simulation, say (the wallet cannot pay the fee).
  if (isSolanaError(error)) return { exitCode: EXIT.NOT_PAID, code: 'RPC_REFUSED' }
  return { exitCode: EXIT.INTERNAL, code: 'INTERNAL_ERROR' }
}
