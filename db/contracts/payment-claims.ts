/** How long a cancel notice is remembered for a claim not taken yet (the notice reached another instance first): longer than any paid call. */
export const CANCEL_MEMORY_MS = 10 * 60_000

/** The door family that claimed a signature: the pay-then-prove headers, or x402 (HTTP or MCP). */
export type ClaimFlow = 'proof' | 'x402'

export interface ClaimRequest {
  signature: string
  claimId: string
  flow: ClaimFlow
  service: string
  payer: string
  amount: bigint
  resource: string
  leaseMs: number
  /**
   * The buyer's x402 payment-identifier: one claim per payer and id (a second payment under the same
   * id is never charged). When it already names another payment of this payer, nothing is claimed
   * and the claim says which (the look-up is part of the claim's one atomic operation).
   */
  paymentId?: string
  /** Names the MCP call this claim serves (its session and JSON-RPC id, hashed), so a cancel notice can find it. */
  callerRef?: string
  /** Unix ms; omitted: the database server's clock on PostgreSQL (one clock for every instance), this process's on SQLite. */
  now?: number
}

/** The answer a redeem keeps for re-delivery: the bytes the buyer paid for, with the receipt. */
export interface AnswerToKeep {
  /** What was bought: method, resource and arguments, hashed (lib/contract/request-key.ts). */
  requestKey: string
  status: number
  contentType: string
  body: string
  /** The receipt as delivered (SettleResponse or the proof receipt). */
  receipt: Record<string, unknown>
  /** How long it is kept (DELIVERY_RETENTION_SECONDS). */
  retentionMs: number
}

/** A kept answer, while its retention lasts. */
export interface KeptAnswer extends Omit<AnswerToKeep, 'retentionMs'> {
  signature: string
  payer: string
  /** Base units the merchant received, the service and the stored resource, as claimed. */
  amount: bigint
  service: string
  resource: string
  paymentId?: string
  /**
   * true: the answer reached the buyer (the HTTP answer finished, the MCP result was written) and no
   * cancel came after; false: it did not (the client left first, or cancelled); null: not known yet
   * (it is being written, or its holder died before it could say).
   */
  reached: boolean | null
  /** When it was kept (unix ms). */
  keptAt: number
  expiresAt: number
}

/**
 * Where a claimed payment stands. 'pending': held, nothing sent; 'sent': a transaction for it may
 * be on its way, only the chain's verdict frees it; 'redeemed': delivered, spent for good;
 * 'refunded': a refund began (db/contracts/refunds.ts), so it never buys.
 */
export type ClaimStatus = 'pending' | 'sent' | 'redeemed' | 'refunded'

export interface ClaimState {
  status: ClaimStatus
  flow: ClaimFlow
}

/** A redeem: the claim its holder names, and what the same atomic operation keeps and ends. */
export interface Redemption {
  signature: string
  claimId: string
  /** Unix ms; omitted: the database server's clock on PostgreSQL, this process's on SQLite. */
  now?: number | undefined
  /** The answer kept for re-delivery; omitted: none is kept. */
  answer?: AnswerToKeep | undefined
  /** The source token account this holder's sent mark held, released with the redeem. */
  releasing?: string | undefined
}

/** A sent mark, with the hold of the source token account it pays from. */
export interface SendMark {
  signature: string
  claimId: string
  leaseMs: number
  /**
   * The source token account, held for this settlement (its holder: the claim id) for at most
   * `holdMs`. One settlement in flight per source keeps several payloads verified against one
   * balance from all being sent at the fee payer's expense.
   */
  source: string
  holdMs: number
  /** Unix ms; omitted: the database server's clock on PostgreSQL, this process's on SQLite. */
  now?: number
}

export type SendMarkResult = 'sent' | 'source-busy' | 'not-held'

/** The payment a payer's payment-identifier already names. */
export interface PaymentIdHolder {
  signature: string
  status: ClaimStatus
}

export type ClaimResult =
  /** `sent`: taken over from a holder that may have sent its transaction: ask the chain first. */
  | { claimed: true, sent: boolean }
  | { claimed: false, status: ClaimStatus, flow: ClaimFlow }
  /** The request's payment-identifier names another payment of the payer: nothing was claimed. */
  | { claimed: false, paymentIdHolder: PaymentIdHolder }

/**
 * The anti-replay store, the same on every engine: a payment (transaction signature) is held by
 * exactly one request at a time under a lease, marked sent before its transaction may leave,
 * redeemed once on delivery, or given back. Every method is one atomic operation of the database,
 * and every method but `claim` and `status` acts only for the current holder (signature + claim id).
 */
export interface PaymentClaims {
  /** Where the signature stands, or undefined: a cheap look before any RPC work. */
  status (signature: string): Promise<ClaimState | undefined>
  /**
   * Takes the signature (new, or one of the same flow whose lease ran out), or says who holds it, or
   * which other payment the request's payment-identifier names.
   */
  claim (request: ClaimRequest): Promise<ClaimResult>
  /**
   * Before sendTransaction, in one atomic operation: holds the payment's source token account for
   * this settlement and marks the claim 'sent', renewing its lease. 'source-busy': another
   * settlement holds the source, nothing changed (wait, then ask again); 'not-held': the claim is no
   * longer this holder's or its call was cancelled, nothing held (send nothing).
   */
  markSent (request: SendMark): Promise<SendMarkResult>
  /** Extends the holder's lease while it works. False: the claim was taken over; deliver nothing. */
  renew (signature: string, claimId: string, leaseMs: number, now?: number): Promise<boolean>
  /**
   * Marks the payment spent and, in the same atomic operation, keeps its answer for re-delivery and
   * ends this holder's hold of `releasing` (the source token account its sent mark held). False
   * means this request no longer holds the claim and must not deliver (its hold may be left).
   */
  redeem (request: Redemption): Promise<boolean>
  /** The kept answer of a redeemed payment, unless its retention ended. */
  keptAnswer (signature: string, now?: number): Promise<KeptAnswer | undefined>
  /** The claim a payer's payment-identifier names, if any (a claim looks it up itself; this is for a payload refused before its claim). */
  claimOfPaymentId (payer: string, paymentId: string): Promise<PaymentIdHolder | undefined>
  /**
   * The MCP client cancelled the call `callerRef` names: its claim can no longer be marked sent
   * (nothing is settled), and its kept answer, if any, counts as not reached. True if a claim matched.
   */
  cancelCall (callerRef: string): Promise<boolean>
  /** Deletes kept answers past retention (at most batchSize) and frees their payment-identifiers; returns how many went. */
  pruneAnswers (now?: number, batchSize?: number): Promise<number>
  /**
   * The holder gives up. A pending claim is deleted (the payment is usable again); a sent one is
   * kept with its lease ended, so the next attempt takes it over and asks the chain.
   */
  release (signature: string, claimId: string, now?: number): Promise<boolean>
  /** The chain said this transaction failed or can never land: nothing moved, the claim is deleted. */
  discard (signature: string, claimId: string): Promise<boolean>
  /** Ends this holder's hold of the source. */
  releaseSource (source: string, holder: string): Promise<boolean>
}
