import type { ClaimFlow } from './payment-claims.js'

/**
 * Where a refund stands. 'reserved': begun, nothing sent, held by one request; 'sent': its
 * transaction (signature and signed bytes recorded before sending) may be on its way, only the
 * chain decides; 'executed': it landed; 'failed': the chain said it failed or can never land
 * (nothing moved), so it may be reserved again for a new transaction.
 */
export type RefundStatus = 'reserved' | 'sent' | 'executed' | 'failed'

export interface RefundRecord {
  /** The payment's transaction signature: one refund per payment. */
  payment: string
  idempotencyKey: string
  payer: string
  /** The paying token account, where the refund goes. */
  destination: string
  amount: bigint
  reason: string
  status: RefundStatus
  holder: string
  leaseExpiresAt: number
  refundSignature?: string
  /** The signed transaction (base64), so a re-send is the same transaction, never a second one. */
  wire?: string
  lastValidBlockHeight?: bigint
  requestedAt: number
  decidedAt?: number
}

export interface RefundBegin {
  payment: string
  idempotencyKey: string
  payer: string
  destination: string
  amount: bigint
  reason: string
  /** The flow a tombstone claim is written under when the payment has no claim row. */
  flow: ClaimFlow
  holder: string
  leaseMs: number
  /** When the payment landed (unix ms) and how long after it a refund may begin. */
  paidAt: number
  windowMs: number
  /** Unix ms; omitted: the database server's clock on PostgreSQL, this process's on SQLite. */
  now?: number
}

export type RefundBeginResult =
  | { begun: true, refund: RefundRecord }
  /** A refund of this payment exists already (any idempotency key): nothing begun. */
  | { begun: false, existing: RefundRecord }
  /** The payment was redeemed (delivered), or the window ended: nothing begun. */
  | { begun: false, denied: 'delivered' | 'outside_window' }

export interface RefundSent {
  signature: string
  wire: string
  lastValidBlockHeight: bigint
}

/**
 * Refunds, the same on every engine. `begin` is the one atomic operation that excludes refund and
 * redemption: it turns the payment's claim into a 'refunded' tombstone (no claim takes it over,
 * no redeem accepts it) unless it was redeemed, and writes the one refund row of the payment.
 */
export interface Refunds {
  begin (request: RefundBegin): Promise<RefundBeginResult>
  get (payment: string): Promise<RefundRecord | undefined>
  /** Before sendTransaction: records the transaction of a refund this holder reserved. False: not held (send nothing). */
  markSent (payment: string, holder: string, sent: RefundSent): Promise<boolean>
  /** The chain's verdict on the sent transaction `signature`; false when the refund is no longer at it. */
  decide (payment: string, signature: string, outcome: 'executed' | 'failed', now?: number): Promise<boolean>
  /**
   * Takes an undecided refund for this holder: a reserved or sent one whose lease ran out (its
   * holder gave up or died), or a failed one, reserved again. A sent one keeps its transaction:
   * the new holder asks the chain before anything is sent.
   */
  takeOver (payment: string, holder: string, leaseMs: number, now?: number): Promise<RefundRecord | undefined>
  /** Refunds not decided yet whose lease ran out, oldest first: what the reconciler looks at. */
  unsettled (limit: number, now?: number): Promise<RefundRecord[]>
}
