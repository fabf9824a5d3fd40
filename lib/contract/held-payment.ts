import type { AuditFlow } from '../../db/contracts/audit-log.js'
import type { AnswerToKeep } from '../../db/contracts/payment-claims.js'
import type { Refusal } from './refusal.js'

/** A verified payment this request holds in the claim store: what every payment method hands the core. */
export interface HeldPayment {
  signature: string
  claimId: string
  /** The token owner who paid. */
  payer: string
  /** Base units the merchant receives. */
  amount: bigint
  /** The product bought: its name in the catalogue (lib/catalogue/). */
  service: string
  flow: AuditFlow
  /** The resource as stored (path and query, or the tool's URL). */
  resource: string
  /** What was bought: method, resource and arguments (request-key.ts). */
  requestKey: string
}

/** A payment method's verdict on a payment it verified and claimed for this request: the core begins its delivery. */
export interface Held<P extends HeldPayment = HeldPayment> {
  kind: 'held'
  payment: P
}

/** What a delivered payment hands back to its door: the receipt its wire format carries. */
export interface Settled {
  kind: 'settled'
  receipt: Record<string, unknown>
}

/**
 * How a payment method turns a held payment into money received: the proof headers redeem (the
 * money moved before); x402 marks the claim sent, sends, waits for the chain, then redeems.
 * Either way it answers Settled only if this holder redeemed the claim.
 */
export type SettlePayment = (answer?: Omit<AnswerToKeep, 'receipt'>) => Promise<Settled | Refusal>
