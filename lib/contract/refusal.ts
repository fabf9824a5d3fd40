import { isAppError } from '../errors/app-error.js'
import { statusOf, type ErrorCode } from '../errors/error-codes.js'
import { isRpcUnavailable, rpcUnavailable } from '../solana/rpc-errors.js'

/**
 * The one shape of "not delivered" on every door and in every step of a paid delivery: a stable
 * code from the error table, its status (from the table unless a door says otherwise), a message
 * for the buyer, and Retry-After when waiting helps.
 *
 * Every step of a payment answers a union discriminated by `kind` (`{ kind: 'held', … }`,
 * `{ kind: 'settled', … }`, …) of which a Refusal is the `'refused'` member, so a refusal is
 * recognised one way everywhere: `outcome.kind === 'refused'`. A check that either passes or
 * refuses answers `Refusal | undefined`.
 */
export interface Refusal {
  kind: 'refused'
  code: ErrorCode
  statusCode: number
  message: string
  retryAfterSeconds?: number
  details?: Record<string, unknown>
}

export function refusal (code: ErrorCode, message: string, extra: { retryAfterSeconds?: number, details?: Record<string, unknown>, statusCode?: number } = {}): Refusal {
  const { retryAfterSeconds, details, statusCode } = extra
  return {
    kind: 'refused',
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

/**
 * A refusal as one line of text, code first so a reader can branch on it, for doors whose wire
 * format has only text for it (the MCP PaymentRequired's `error`, an A2A status message):
 * `CODE: message (retry in N s)`. `retry` names the wait as the door says it.
 */
export function refusalText (refused: Refusal, retry = 'retry'): string {
  const wait = refused.retryAfterSeconds === undefined ? '' : ` (${retry} in ${refused.retryAfterSeconds} s)`
  return `${refused.code}: ${refused.message}${wait}`
}

/** How long a buyer waits before sending a payment again that another request holds right now. */
export const IN_PROGRESS_RETRY_SECONDS = 1
/** How long a buyer waits while the merchant's fee payer cannot pay a transaction fee. */
export const FEE_PAYER_UNFUNDED_RETRY_SECONDS = 30

/**
 * The refusals more than one step or method gives, each message written once here. Where the
 * buyer's next step differs by payment method (a proof is retried with the proof headers, an
 * x402 payment with its payload) the message does too.
 */
const IN_PROGRESS_MESSAGES = {
  /** x402: another request holds this payment's claim. */
  'x402-held': 'Another request is being served with this payment; retry the same payment shortly',
  /** x402: another payment from the same token account is settling (one settlement in flight per source). */
  'source-busy': 'another payment from the same token account is settling; retry the same payment shortly',
  /** Proof headers: another request holds this proof's claim. */
  'proof-held': 'Another request is being served with this payment right now; if it fails, retry with the same proof',
  /** Proof headers: the claim was taken over while this request was served. */
  'proof-taken-over': 'This payment was taken over by another request while this one was served; retry with the same proof',
  /** The delivery was completed or given back already. */
  'no-longer-held': 'This payment is no longer held by this request',
  /** A kept answer whose first delivery is still being written. */
  'being-delivered': 'The answer this payment bought is being delivered right now; retry shortly: if it did not reach you, you get it then'
} as const

export type InProgressSituation = keyof typeof IN_PROGRESS_MESSAGES

export function paymentInProgress (situation: InProgressSituation): Refusal {
  return refusal('PAYMENT_IN_PROGRESS', IN_PROGRESS_MESSAGES[situation], { retryAfterSeconds: IN_PROGRESS_RETRY_SECONDS })
}

const ALREADY_USED_MESSAGES = {
  x402: 'This payment already bought a delivery',
  /** An x402 payload whose transaction was claimed with the proof headers. */
  'claimed-as-proof': 'This transaction was claimed through the proof headers',
  proof: 'This payment has already bought a delivery; pay again for another',
  /** A payment refunded (or being refunded): it buys nothing. */
  refunded: 'This payment was refunded; it buys nothing'
} as const

export function paymentAlreadyUsed (by: keyof typeof ALREADY_USED_MESSAGES): Refusal {
  return refusal('PAYMENT_ALREADY_USED', ALREADY_USED_MESSAGES[by])
}

/** A transaction whose fee the x402 fee payer paid, presented with the proof headers. */
export const x402PaymentAsProof = (): Refusal =>
  refusal('PAYMENT_FLOW_MISMATCH', 'This transaction is an x402 payment: only its x402 payload buys its delivery, not the proof headers')

export const paymentIdConflict = (why: string): Refusal =>
  refusal('PAYMENT_ID_CONFLICT', `${why}; use a new payment-identifier for a new purchase. Nothing moved`)

export const feePayerUnfunded = (): Refusal =>
  refusal('X402_FEE_PAYER_UNFUNDED', 'the merchant cannot pay the transaction fee right now; nothing moved', { retryAfterSeconds: FEE_PAYER_UNFUNDED_RETRY_SECONDS })

export const settlementFailedOnChain = (error: string): Refusal =>
  refusal('X402_SETTLEMENT_FAILED', `the transaction failed on chain (${error.slice(0, 200)}); your tokens did not move`)

/** The transaction may be on its way: the same payment retried after `retryAfterSeconds` delivers once it landed. */
export const settlementPending = (signature: string, retryAfterSeconds: number): Refusal =>
  refusal('X402_SETTLEMENT_PENDING',
    `The payment ${signature} was sent but is not confirmed yet; retry the same payment after ${retryAfterSeconds} s: it is delivered once it landed, never charged twice`,
    { retryAfterSeconds })

/** A settlement that threw something that is no refusal (a bug): nothing is said of it but the request id. */
export const internalError = (): Refusal => refusal('INTERNAL_ERROR', 'Internal server error; quote the request id when reporting it')

/** The buyer left (an MCP call cancelled, an A2A request closed) before anything was settled. */
export const goneBeforeSettlement = (what: 'The call was cancelled' | 'The request was closed'): Refusal =>
  refusal('SERVICE_UNAVAILABLE', `${what} before settlement; nothing was charged`)

/**
 * The store or the node failed while the payment settled (a redeem after the money moved, a send
 * whose fate is unknown): its code and wait stay, its message no longer says that nothing was
 * charged, since the money may have moved: the same payment, retried, delivers once.
 */
export function settlementInterrupted (refused: Refusal | undefined): Refusal | undefined {
  if (refused === undefined || (refused.code !== 'STORE_UNAVAILABLE' && refused.code !== 'RPC_UNAVAILABLE')) return refused
  const what = refused.code === 'STORE_UNAVAILABLE' ? 'The database' : 'The Solana RPC node'
  return { ...refused, message: `${what} failed while this payment settled, so it may have moved: retry the same payment shortly; it is delivered once, never charged twice` }
}
