import { AppError } from '../errors/app-error.js'
import type { SharedCounts } from '../limits/shared-counts.js'
import { createWindowCounter } from '../limits/window-counter.js'

/** Refusals that mean the client's proof named no good payment (not our or the node's trouble). */
const FAILED_PROOF_CODES = new Set(['INVALID_PAYMENT_HEADER', 'PAYMENT_NOT_FOUND', 'PAYMENT_FAILED', 'PAYER_MISMATCH', 'AMOUNT_TOO_LOW', 'PAYMENT_EXPIRED', 'PAYMENT_ALREADY_USED', 'WALLET_SIGNATURE_REQUIRED', 'WALLET_SIGNATURE_INVALID'])

/** x402 refusals that are the client's doing: any 402 of the standard flow, a failed settlement included (it cost the fee payer). */
function isFailedProof (code: string): boolean {
  return FAILED_PROOF_CODES.has(code) || (code.startsWith('X402_') && code !== 'X402_SETTLEMENT_PENDING' && code !== 'X402_FEE_PAYER_UNFUNDED')
}

/**
 * PROOF_FAILURE_LIMIT: failed proofs per client and window (0 turns it off). A client at the limit
 * is answered 429 before any further RPC call until its window ends; only failures count, so a
 * client whose proofs are good is never held back by them. With `shared`, one limit for every
 * instance sharing the store.
 */
export function createProofFailureLimit (options: { limit: number, windowMs: number, now?: () => number, shared?: SharedCounts }) {
  const failures = createWindowCounter({ windowMs: options.windowMs, now: options.now, shared: { counts: options.shared, scope: 'failed-proofs', limit: options.limit } })
  // Verifications under way per client: a burst (an MCP batch, pipelined requests) is counted as
  // it arrives, so it cannot all pass the check before its first failure is recorded.
  const inFlight = new Map<string, number>()

  return {
    /**
     * Throws 429 RATE_LIMITED (with Retry-After) when the client's failures, with the verifications
     * it has under way, reach the limit. Otherwise the verification counts as under way until the
     * returned function is called (after its failure, if any, was recorded).
     */
    check (client: string): () => void {
      if (options.limit === 0) return () => {}
      const { count, retryAfterSeconds: seconds } = failures.peek(client)
      const pending = inFlight.get(client) ?? 0
      if (count + pending < options.limit) {
        inFlight.set(client, pending + 1)
        let done = false
        return () => {
          if (done) return
          done = true
          const left = (inFlight.get(client) ?? 1) - 1
          if (left === 0) inFlight.delete(client)
          else inFlight.set(client, left)
        }
      }
      throw new AppError('RATE_LIMITED', `${options.limit} failed payment proofs in ${options.windowMs / 1000} s; retry in ${seconds} s with a valid proof`,
        { headers: { 'retry-after': String(seconds) }, details: { retryAfterSeconds: seconds } })
    },

    /** Counts a refusal against the client when it says the proof was bad. */
    record (client: string, code: string): void {
      if (isFailedProof(code)) this.count(client)
    },

    /** Counts a failure against the client whatever its code: a handler that failed for a payment it holds. */
    count (client: string): void {
      if (options.limit !== 0) failures.add(client)
    }
  }
}
