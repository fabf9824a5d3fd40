import type pg from 'pg'
import type { Refunds } from '../contracts/refunds.js'
import { REFUND_COLUMNS, refundRecord, type RefundRow } from '../refund-row.js'
import type { DatabaseCall } from './connection.js'
import { inTransaction } from './transaction.js'

const CLOCK_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint'
const SELECT_REFUND = `SELECT ${REFUND_COLUMNS} FROM refunds WHERE payment = $1`
// A claim in progress (pending or sent) is turned 'refunded'; a redeemed one never is. Under a
// concurrent redeem or refund the statement waits for the row's lock, then re-reads the row as
// committed: it turns nothing, and the begin reads why.
const TOMBSTONE = `INSERT INTO payment_claims AS c (signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at)
  VALUES ($1, 'refunded', $2, $3, $4, 'refund', $5, $6, '', $4)
  ON CONFLICT (signature) DO UPDATE SET status = 'refunded' WHERE c.status IN ('pending', 'sent')
  RETURNING c.signature`
const INSERT_REFUND = `INSERT INTO refunds (payment, idempotency_key, payer, destination, amount, reason, status, holder, lease_expires_at, requested_at)
  VALUES ($1, $2, $3, $4, $5, $6, 'reserved', $7, $8::bigint + $9::bigint, $8)
  RETURNING ${REFUND_COLUMNS}`
const MARK_SENT = `UPDATE refunds SET status = 'sent', refund_signature = $3, wire = $4, last_valid_height = $5
  WHERE payment = $1 AND holder = $2 AND status = 'reserved'`
const DECIDE = `UPDATE refunds SET status = $3, decided_at = coalesce($4::bigint, ${CLOCK_MS})
  WHERE payment = $1 AND status = 'sent' AND refund_signature = $2`
// SET reads the row as it was: a failed refund is reserved again, its dead transaction forgotten.
const TAKE_OVER = `WITH t AS (SELECT coalesce($4::bigint, ${CLOCK_MS}) AS now)
  UPDATE refunds SET holder = $2, lease_expires_at = t.now + $3::bigint,
    status = CASE WHEN status = 'failed' THEN 'reserved' ELSE status END,
    refund_signature = CASE WHEN status = 'failed' THEN NULL ELSE refund_signature END,
    wire = CASE WHEN status = 'failed' THEN NULL ELSE wire END,
    last_valid_height = CASE WHEN status = 'failed' THEN NULL ELSE last_valid_height END
  FROM t
  WHERE payment = $1 AND (status = 'failed' OR (status IN ('reserved', 'sent') AND lease_expires_at <= t.now))
  RETURNING ${REFUND_COLUMNS}`
const UNSETTLED = `SELECT ${REFUND_COLUMNS} FROM refunds
  WHERE status = 'failed' OR (status IN ('reserved', 'sent') AND lease_expires_at <= coalesce($2::bigint, ${CLOCK_MS}))
  ORDER BY requested_at LIMIT $1`

/**
 * Refunds on PostgreSQL, atomic across every instance: the begin is one transaction (the claim's
 * tombstone and the refund row commit together, or neither), every other call one statement. All
 * go through the durable pool: a refund's record must outlive a crash of the server before its
 * transaction leaves.
 */
export function createPostgresRefunds (pool: pg.Pool, callDatabase: DatabaseCall): Refunds {
  const one = async (text: string, values: unknown[]) => {
    const { rows } = await callDatabase(async () => await pool.query<RefundRow>(text, values))
    return rows[0] === undefined ? undefined : refundRecord(rows[0])
  }
  const changed = async (text: string, values: unknown[]) =>
    ((await callDatabase(async () => await pool.query(text, values))).rowCount ?? 0) === 1

  return {
    async begin (request) {
      return await inTransaction(pool, callDatabase, async client => {
        const existing = (await client.query<RefundRow>(SELECT_REFUND, [request.payment])).rows[0]
        if (existing !== undefined) return { begun: false, existing: refundRecord(existing) }
        const now = Number((await client.query<{ now: string }>(`SELECT coalesce($1::bigint, ${CLOCK_MS}) AS now`, [request.now ?? null])).rows[0].now)
        if (now - request.paidAt > request.windowMs) {
          // Said only for a payment never redeemed: a delivered one is denied as delivered.
          const redeemed = (await client.query('SELECT 1 FROM payment_claims WHERE signature = $1 AND status = \'redeemed\'', [request.payment])).rowCount === 1
          return { begun: false, denied: redeemed ? 'delivered' : 'outside_window' }
        }
        const turned = await client.query(TOMBSTONE, [request.payment, request.flow, request.holder, now, request.payer, request.amount.toString()])
        if (turned.rowCount !== 1) {
          // Redeemed, or refunded by a begin that committed while this one waited for the row.
          const refund = (await client.query<RefundRow>(SELECT_REFUND, [request.payment])).rows[0]
          return refund === undefined ? { begun: false, denied: 'delivered' } : { begun: false, existing: refundRecord(refund) }
        }
        const { rows } = await client.query<RefundRow>(INSERT_REFUND, [request.payment, request.idempotencyKey, request.payer, request.destination,
          request.amount.toString(), request.reason, request.holder, now, request.leaseMs])
        return { begun: true, refund: refundRecord(rows[0]) }
      })
    },
    get: async (payment) => await one(SELECT_REFUND, [payment]),
    markSent: async (payment, holder, sent) => await changed(MARK_SENT, [payment, holder, sent.signature, sent.wire, sent.lastValidBlockHeight.toString()]),
    decide: async (payment, signature, outcome, now) => await changed(DECIDE, [payment, signature, outcome, now ?? null]),
    takeOver: async (payment, holder, leaseMs, now) => await one(TAKE_OVER, [payment, holder, leaseMs, now ?? null]),
    async unsettled (limit, now) {
      const { rows } = await callDatabase(async () => await pool.query<RefundRow>(UNSETTLED, [limit, now ?? null]))
      return rows.map(refundRecord)
    }
  }
}
