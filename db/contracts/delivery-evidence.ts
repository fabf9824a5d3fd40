/** One verified payment of the audit log, as /reputation/deliveries publishes it: nothing of the buyer. */
export interface DeliveryRecord {
  /** The audit row's id: the page cursor. */
  id: bigint
  signature: string
  service: string
  resource: string
  /** Base units the merchant received. */
  amount: bigint
  outcome: string
  /** Unix ms of the first attempt with this payment. */
  at: number
}

/** The evidence behind the reputation figures: the verified payments, oldest first, the same on every engine. */
export interface DeliveryEvidence {
  /** Up to `limit` verified payments with an audit id above `after` (0n: from the first). */
  page (after: bigint, limit: number): Promise<DeliveryRecord[]>
}
