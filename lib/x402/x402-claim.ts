import type { AuditFlow } from '../../db/contracts/audit-log.js'
import type { PaymentClaims } from '../../db/contracts/payment-claims.js'
import type { HeldPayment } from '../contract/held-payment.js'
import { settlementPending, type Refusal } from '../contract/refusal.js'
import type { CheckedTransfer } from './transaction-rules.js'

/** The audit flow a door names its payments by: a label the method keeps, never reads. */
export type X402ClaimFlow = Exclude<AuditFlow, 'proof'>

/** A verified x402 payment whose transaction signature this caller holds in the claim store. */
export interface X402Claim extends HeldPayment {
  flow: X402ClaimFlow
  x402Version: 1 | 2
  /** The URL (or tool URL) as offered, query included, for its signed receipt (the store keeps no query). */
  resourceUrl?: string
  /** Internal: what settle needs. */
  transfer: CheckedTransfer
  feePayerSignature: Uint8Array
  /** The chain already has the transaction (a retry after a lost answer): settle sends nothing. */
  onChain: boolean
  /** Taken over from a holder that marked it sent: a refused re-send is not proof that nothing moved. */
  mayHaveBeenSent: boolean
}

/** What the door knows of the request a payload pays for. */
export interface X402Request {
  /** The URL (or tool URL) being bought: a v2 payload must name it. */
  resource: string
  flow: X402ClaimFlow
  /** The x402 version the door's transport carries (its header, A2A's v2 only); any when undefined. */
  version?: 1 | 2
  /** Method, resource and arguments (lib/contract/request-key.ts). */
  requestKey: string
  /** MCP: names the call, so its cancel notice can find the claim. */
  callerRef?: string
}

/** The Retry-After of a pending settlement at most. */
export const PENDING_RETRY_SECONDS = 2

/**
 * The transaction may be on its way: the claim is kept (its lease ended) for the retry, which asks
 * the chain. Answered by verification (a takeover the node cannot judge) and by settlement alike.
 */
export async function keepForRetry (claims: Pick<PaymentClaims, 'release'>, claim: X402Claim, settlementTimeoutMs: number): Promise<Refusal> {
  await claims.release(claim.signature, claim.claimId)
  // Short: the buyer's own retry should come back before anyone who rebuilds the landed payload.
  return settlementPending(claim.signature, Math.min(PENDING_RETRY_SECONDS, Math.max(1, Math.ceil(settlementTimeoutMs / 1000))))
}
