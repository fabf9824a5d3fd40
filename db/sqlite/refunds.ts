import type { RefundBegin, RefundBeginResult, Refunds } from '../contracts/refunds.js'
import { REFUND_COLUMNS, refundRecord, type RefundRow } from '../refund-row.js'
import type { SqliteDatabase } from './open-database.js'

/**
 * Refunds on SQLite. The begin is one immediate transaction (every process sharing the file waits
 * for it): the refund row, the claim's 'refunded' tombstone and the checks that allow them commit
 * together, so a redeem or another refund either comes before it (and is seen) or after (and is
 * refused). Every other call is one statement.
 */
export function createRefunds (db: SqliteDatabase): Refunds {
  const selectRefund = db.prepare(`SELECT ${REFUND_COLUMNS} FROM refunds WHERE payment = ?`)
  const claimStatus = db.prepare('SELECT status FROM payment_claims WHERE signature = ?').pluck()
  // A claim in progress (pending or sent, held or not) is turned: its holder's redeem then fails
  // and it delivers nothing. A redeemed claim never is (the begin checked it in this transaction).
  const tombstone = db.prepare(`
    INSERT INTO payment_claims (signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at)
    VALUES (@payment, 'refunded', @flow, @holder, @now, 'refund', @payer, @amount, '', @now)
    ON CONFLICT (signature) DO UPDATE SET status = 'refunded'
    WHERE payment_claims.status IN ('pending', 'sent')`)
  const insertRefund = db.prepare(`
    INSERT INTO refunds (payment, idempotency_key, payer, destination, amount, reason, status, holder, lease_expires_at, requested_at)
    VALUES (@payment, @idempotencyKey, @payer, @destination, @amount, @reason, 'reserved', @holder, @now + @leaseMs, @now)`)
  const begin = db.transaction((request: Required<RefundBegin>): RefundBeginResult => {
    const existing = selectRefund.get(request.payment) as RefundRow | undefined
    if (existing !== undefined) return { begun: false, existing: refundRecord(existing) }
    if (claimStatus.get(request.payment) === 'redeemed') return { begun: false, denied: 'delivered' }
    if (request.now - request.paidAt > request.windowMs) return { begun: false, denied: 'outside_window' }
    const row = { ...request, amount: request.amount.toString() }
    tombstone.run(row)
    insertRefund.run(row)
    return { begun: true, refund: refundRecord(selectRefund.get(request.payment) as RefundRow) }
  })
  const markSent = db.prepare(`
    UPDATE refunds SET status = 'sent', refund_signature = @signature, wire = @wire, last_valid_height = @lastValidBlockHeight
    WHERE payment = @payment AND holder = @holder AND status = 'reserved'`)
  const decide = db.prepare(`
    UPDATE refunds SET status = @outcome, decided_at = @now
    WHERE payment = @payment AND status = 'sent' AND refund_signature = @signature`)
  // SET reads the row as it was: a failed refund is reserved again, its dead transaction forgotten.
  const takeOver = db.prepare(`
    UPDATE refunds SET holder = @holder, lease_expires_at = @now + @leaseMs,
      status = CASE WHEN status = 'failed' THEN 'reserved' ELSE status END,
      refund_signature = CASE WHEN status = 'failed' THEN NULL ELSE refund_signature END,
      wire = CASE WHEN status = 'failed' THEN NULL ELSE wire END,
      last_valid_height = CASE WHEN status = 'failed' THEN NULL ELSE last_valid_height END
    WHERE payment = @payment AND (status = 'failed' OR (status IN ('reserved', 'sent') AND lease_expires_at <= @now))
    RETURNING ${REFUND_COLUMNS}`)
  const unsettled = db.prepare(`
    SELECT ${REFUND_COLUMNS} FROM refunds
    WHERE status = 'failed' OR (status IN ('reserved', 'sent') AND lease_expires_at <= ?)
    ORDER BY requested_at LIMIT ?`)

  return {
    async begin (request) {
      return begin.immediate({ ...request, now: request.now ?? Date.now() })
    },
    async get (payment) {
      const row = selectRefund.get(payment) as RefundRow | undefined
      return row === undefined ? undefined : refundRecord(row)
    },
    async markSent (payment, holder, sent) {
      return markSent.run({ payment, holder, ...sent, lastValidBlockHeight: sent.lastValidBlockHeight.toString() }).changes === 1
    },
    async decide (payment, signature, outcome, now = Date.now()) {
      return decide.run({ payment, signature, outcome, now }).changes === 1
    },
    async takeOver (payment, holder, leaseMs, now = Date.now()) {
      const row = takeOver.get({ payment, holder, leaseMs, now }) as RefundRow | undefined
      return row === undefined ? undefined : refundRecord(row)
    },
    async unsettled (limit, now = Date.now()) {
      return (unsettled.all(now, limit) as RefundRow[]).map(refundRecord)
    }
  }
}
