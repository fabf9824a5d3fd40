import type { KeptAnswer, PaymentClaims } from '../../db/contracts/payment-claims.js'
import { paymentIdConflict, paymentInProgress, type Refusal } from './refusal.js'

/**
 * Who may fetch an answer that did not reach its buyer. 'payment': whoever brings the same payment
 * (a landed transaction is public, so anyone who rebuilds it); 'buyer-only': only a request that
 * proves it is the buyer's (the same x402 payment-identifier, or a valid wallet signature with the
 * proof headers).
 */
export type RedeliveryMode = 'payment' | 'buyer-only'

/** What the request that brings a spent payment asks for. */
export interface RedeliveryAsk {
  signature: string
  requestKey: string
  /** The x402 payment-identifier the payload carries. */
  paymentId?: string
  /** The request proved it is the buyer's (a wallet signature over it). */
  buyerProven?: boolean
  /** The payer the request names (the proof headers' wallet): it must be the one who paid. */
  payer?: string
}

/** A kept answer this request may have again, nothing charged. */
export interface Redelivery {
  kind: 'redelivered'
  answer: KeptAnswer
}

/**
 * The rule for a spent payment that comes again: its kept answer when it did not reach the buyer
 * (the same resource and arguments, within the retention), or whenever it comes with the
 * payment-identifier it was bought with; 409 while its first delivery is still being written;
 * else undefined (the caller answers PAYMENT_ALREADY_USED).
 */
export function createRedelivery (options: {
  claims: Pick<PaymentClaims, 'keptAnswer'>
  mode: RedeliveryMode
  /** How long an answer whose fate is not known yet waits to count as lost: the claim lease (its holder has died by then). */
  unknownForMs: number
}) {
  return async function redeliveryOf (ask: RedeliveryAsk): Promise<Redelivery | Refusal | undefined> {
    const answer = await options.claims.keptAnswer(ask.signature)
    if (answer === undefined || (ask.payer !== undefined && ask.payer !== answer.payer)) return undefined
    if (ask.paymentId !== undefined && ask.paymentId === answer.paymentId) {
      if (answer.requestKey !== ask.requestKey) return paymentIdConflict('This payment-identifier bought another request (other resource or arguments)')
      return { kind: 'redelivered', answer }
    }
    // Bought under a payment-identifier: only a request carrying it is the buyer's (the id never goes on chain).
    if (answer.paymentId !== undefined) return undefined
    if (answer.requestKey !== ask.requestKey || answer.reached === true) return undefined
    if (options.mode === 'buyer-only' && ask.buyerProven !== true) return undefined
    // Not known yet: the answer is being written (a concurrent duplicate must not get it too), or
    // its holder died before it could say (then, once its lease ran out, it counts as lost).
    if (answer.reached === null && Date.now() - answer.keptAt < options.unknownForMs) {
      return paymentInProgress('being-delivered')
    }
    return { kind: 'redelivered', answer }
  }
}

export type RedeliveryOf = ReturnType<typeof createRedelivery>
