import { isAppError } from '../errors/app-error.js'
import { statusOf, type ErrorCode } from '../errors/error-codes.js'
import { isRpcUnavailable, rpcUnavailable } from '../solana/rpc-errors.js'

/**
 * The one shape of "not delivered" on every door and in every step of a paid delivery: a stable
 * code from the error table, its status (from the table unless a door says otherwise), a message
 * for the buyer, and Retry-After when waiting helps.
 */
export interface Refusal {
  refused: true
  code: ErrorCode
  statusCode: number
  message: string
  retryAfterSeconds?: number
  details?: Record<string, unknown>
}

export function refusal (code: ErrorCode, message: string, extra: { retryAfterSeconds?: number, details?: Record<string, unknown>, statusCode?: number } = {}): Refusal {
  const { retryAfterSeconds, details, statusCode } = extra
  return {
    refused: true,
    code,
    statusCode: statusCode ?? statusOf(code),
    message,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(details === undefined ? {} : { details })
  }
}

/**
 * A thrown error as a refusal: an AppError keeps its code (and Retry-After), a node or network
 * failure is RPC_UNAVAILABLE. Anything else is a bug: undefined, so the caller logs it and answers
 * INTERNAL_ERROR without its text.
 */
export function refusalOf (error: unknown): Refusal | undefined {
  const known = isAppError(error) ? error : isRpcUnavailable(error) ? rpcUnavailable(error) : undefined
  if (known === undefined) return undefined
  const retryAfter = Number(known.headers?.['retry-after'])
  return refusal(known.code, known.message, {
    statusCode: known.statusCode,
    details: known.details,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {})
  })
}

/** The headers a refusal adds to its answer. */
export function refusalHeaders (refused: Refusal): Record<string, string> {
  return refused.retryAfterSeconds === undefined ? {} : { 'retry-after': String(refused.retryAfterSeconds) }
}
