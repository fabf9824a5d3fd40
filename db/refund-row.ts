import type { RefundRecord, RefundStatus } from './contracts/refunds.js'

/** The refunds columns both engines select, named as RefundRecord names them. */
export const REFUND_COLUMNS = `payment, idempotency_key AS "idempotencyKey", payer, destination, amount, reason, status, holder,
  lease_expires_at AS "leaseExpiresAt", refund_signature AS "refundSignature", wire, last_valid_height AS "lastValidBlockHeight",
  requested_at AS "requestedAt", decided_at AS "decidedAt"`

/** A refunds row as an engine returns it: amounts as text, times as numbers or (PostgreSQL bigint) text, absent values null. */
export interface RefundRow {
  payment: string
  idempotencyKey: string
  payer: string
  destination: string
  amount: string | number
  reason: string
  status: RefundStatus
  holder: string
  leaseExpiresAt: number | string
  refundSignature: string | null
  wire: string | null
  lastValidBlockHeight: string | number | null
  requestedAt: number | string
  decidedAt: number | string | null
}

export function refundRecord (row: RefundRow): RefundRecord {
  return {
    payment: row.payment,
    idempotencyKey: row.idempotencyKey,
    payer: row.payer,
    destination: row.destination,
    amount: BigInt(row.amount),
    reason: row.reason,
    status: row.status,
    holder: row.holder,
    leaseExpiresAt: Number(row.leaseExpiresAt),
    requestedAt: Number(row.requestedAt),
    ...(row.refundSignature === null ? {} : { refundSignature: row.refundSignature }),
    ...(row.wire === null ? {} : { wire: row.wire }),
    ...(row.lastValidBlockHeight === null ? {} : { lastValidBlockHeight: BigInt(row.lastValidBlockHeight) }),
    ...(row.decidedAt === null ? {} : { decidedAt: Number(row.decidedAt) })
  }
}
