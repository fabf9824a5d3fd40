import { CANCEL_MEMORY_MS, type AnswerToKeep, type ClaimResult, type ClaimState, type ClaimStatus, type KeptAnswer, type PaymentClaims, type PaymentIdHolder, type SendMark, type SendMarkResult } from '../contracts/payment-claims.js'
import type { SqliteDatabase } from './open-database.js'

/**
 * The anti-replay store on SQLite. Each decision is one SQL statement, or one transaction (a
 * release, the sent mark with its source hold, a redeem keeping its answer), so it is atomic across
 * every process sharing the database file. Synchronous underneath; Promises outside.
 */
export function createPaymentClaims (db: SqliteDatabase): PaymentClaims {
  // Insert a new claim, or take over one of the same flow whose lease ran out (a crashed, stuck
  // or pending request). A redeemed row, a live lease or another flow makes the WHERE false, so
  // nothing is returned. A taken-over row keeps its status: 'sent' stays sent. A row bought under a
  // payment-identifier is taken over only by a request carrying that id (anyone can rebuild a landed
  // payload; only the buyer knows its id), and a stored id is never overwritten.
  const claimStatement = db.prepare(`
    INSERT INTO payment_claims (signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at, payment_id, caller_ref, cancelled)
    VALUES (@signature, 'pending', @flow, @claimId, @leaseExpiresAt, @service, @payer, @amount, @resource, @now, @paymentId, @callerRef,
      EXISTS (SELECT 1 FROM cancelled_calls WHERE caller_ref = @callerRef))
    ON CONFLICT (signature) DO UPDATE SET
      claim_id = excluded.claim_id, lease_expires_at = excluded.lease_expires_at, service = excluded.service,
      payer = excluded.payer, amount = excluded.amount, resource = excluded.resource, claimed_at = excluded.claimed_at,
      payment_id = coalesce(payment_claims.payment_id, excluded.payment_id), caller_ref = excluded.caller_ref, cancelled = excluded.cancelled
    WHERE payment_claims.status IN ('pending', 'sent') AND payment_claims.flow = excluded.flow
      AND payment_claims.lease_expires_at <= excluded.claimed_at
      AND (payment_claims.payment_id IS NULL OR payment_claims.payment_id = excluded.payment_id)
    RETURNING claim_id AS claimId, status`)
  const statusStatement = db.prepare('SELECT status, flow FROM payment_claims WHERE signature = ?')
  const paymentIdStatement = db.prepare('SELECT signature, status FROM payment_claims WHERE payer = ? AND payment_id = ?')
  // With a payment-identifier, the look-up of the payment it names and the claim are one write
  // transaction: no other process can take the id between them, so the unique index on (payer,
  // payment_id) is never what refuses a claim here.
  const claimUnderPaymentId = db.transaction((row: Record<string, unknown> & { signature: string, payer: string, paymentId: string }): PaymentIdHolder | { claimId: string, status: ClaimStatus } | undefined => {
    const named = paymentIdStatement.get(row.payer, row.paymentId) as PaymentIdHolder | undefined
    if (named !== undefined && named.signature !== row.signature) return named
    return claimStatement.get(row) as { claimId: string, status: ClaimStatus } | undefined
  })
  const markSentStatement = db.prepare(`
    UPDATE payment_claims SET status = 'sent', lease_expires_at = ?
    WHERE signature = ? AND claim_id = ? AND status IN ('pending', 'sent') AND cancelled = 0`)
  const renewStatement = db.prepare(`
    UPDATE payment_claims SET lease_expires_at = ?
    WHERE signature = ? AND claim_id = ? AND status IN ('pending', 'sent')`)
  // Take the source if nobody holds it, its hold ran out, or this holder holds it already.
  const holdStatement = db.prepare(`
    INSERT INTO source_holds (source, holder, expires_at) VALUES (@source, @holder, @expiresAt)
    ON CONFLICT (source) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE source_holds.expires_at <= @now OR source_holds.holder = excluded.holder
    RETURNING holder`).pluck()
  const releaseSourceStatement = db.prepare('DELETE FROM source_holds WHERE source = ? AND holder = ?')
  const redeemStatement = db.prepare(`
    UPDATE payment_claims SET status = 'redeemed', redeemed_at = ?
    WHERE signature = ? AND claim_id = ? AND status IN ('pending', 'sent')`)
  const deletePending = db.prepare(`
    DELETE FROM payment_claims WHERE signature = ? AND claim_id = ? AND status = 'pending'`)
  const endSentLease = db.prepare(`
    UPDATE payment_claims SET lease_expires_at = ? WHERE signature = ? AND claim_id = ? AND status = 'sent'`)
  const release = db.transaction((signature: string, claimId: string, now: number) =>
    deletePending.run(signature, claimId).changes + endSentLease.run(now, signature, claimId).changes === 1)
  const keepAnswer = db.prepare(`
    INSERT OR REPLACE INTO kept_answers (signature, request_key, status, content_type, body, receipt, kept_at, expires_at)
    VALUES (@signature, @requestKey, @status, @contentType, @body, @receipt, @keptAt, @expiresAt)`)
  const redeemKeeping = db.transaction((signature: string, claimId: string, now: number, answer: AnswerToKeep | undefined, releasing: string | undefined) => {
    if (releasing !== undefined) releaseSourceStatement.run(releasing, claimId)
    if (redeemStatement.run(now, signature, claimId).changes !== 1) return false
    if (answer !== undefined) keepAnswer.run({ ...answer, signature, receipt: JSON.stringify(answer.receipt), keptAt: now, expiresAt: now + answer.retentionMs })
    return true
  })
  const keptAnswerStatement = db.prepare(`
    SELECT a.signature, a.request_key AS requestKey, a.status, a.content_type AS contentType, a.body, a.receipt,
      CASE WHEN c.cancelled = 1 THEN 0 ELSE a.reached END AS reached, a.kept_at AS keptAt, a.expires_at AS expiresAt, c.payer, c.amount, c.service, c.resource, c.payment_id AS paymentId
    FROM kept_answers a JOIN payment_claims c ON c.signature = a.signature
    WHERE a.signature = ? AND a.expires_at > ?`)
  const rememberCancel = db.prepare('INSERT OR REPLACE INTO cancelled_calls (caller_ref, expires_at) VALUES (?, ?)')
  const cancelStatement = db.prepare('UPDATE payment_claims SET cancelled = 1 WHERE caller_ref = ?')
  const cancelCall = db.transaction((callerRef: string, now: number) => {
    rememberCancel.run(callerRef, now + CANCEL_MEMORY_MS)
    return cancelStatement.run(callerRef).changes > 0
  })
  const forgetCancels = db.prepare('DELETE FROM cancelled_calls WHERE expires_at <= ?')
  const EXPIRED = 'SELECT signature FROM kept_answers WHERE expires_at <= @now ORDER BY expires_at LIMIT @limit'
  const freePaymentIds = db.prepare(`UPDATE payment_claims SET payment_id = NULL WHERE payment_id IS NOT NULL AND signature IN (${EXPIRED})`)
  const deleteExpired = db.prepare(`DELETE FROM kept_answers WHERE signature IN (${EXPIRED})`)
  const pruneAnswers = db.transaction((now: number, limit: number) => {
    forgetCancels.run(now)
    freePaymentIds.run({ now, limit })
    return deleteExpired.run({ now, limit }).changes
  })
  const discardStatement = db.prepare(`
    DELETE FROM payment_claims WHERE signature = ? AND claim_id = ? AND status IN ('pending', 'sent')`)

  // The hold and the mark commit together; a mark refused gives the hold back in the same transaction.
  const markSent = db.transaction(({ signature, claimId, leaseMs, source, holdMs, now }: Required<SendMark>): SendMarkResult => {
    if (holdStatement.get({ source, holder: claimId, expiresAt: now + holdMs, now }) !== claimId) return 'source-busy'
    if (markSentStatement.run(now + leaseMs, signature, claimId).changes === 1) return 'sent'
    releaseSourceStatement.run(source, claimId)
    return 'not-held'
  })

  return {
    async releaseSource (source, holder) {
      return releaseSourceStatement.run(source, holder).changes === 1
    },

    async status (signature) {
      return statusStatement.get(signature) as ClaimState | undefined
    },

    async claim (request): Promise<ClaimResult> {
      const now = request.now ?? Date.now()
      const row = {
        signature: request.signature,
        claimId: request.claimId,
        flow: request.flow,
        leaseExpiresAt: now + request.leaseMs,
        service: request.service,
        payer: request.payer,
        amount: request.amount.toString(),
        resource: request.resource,
        paymentId: request.paymentId ?? null,
        callerRef: request.callerRef ?? null,
        now
      }
      const winner = request.paymentId === undefined
        ? claimStatement.get(row) as { claimId: string, status: ClaimStatus } | undefined
        : claimUnderPaymentId.immediate({ ...row, paymentId: request.paymentId })
      if (winner !== undefined && 'signature' in winner) return { claimed: false, paymentIdHolder: winner }
      if (winner?.claimId === request.claimId) return { claimed: true, sent: winner.status === 'sent' }
      // Lost the race: say why. A row deleted in between reads as still in progress.
      const holder = statusStatement.get(request.signature) as ClaimState | undefined
      return { claimed: false, status: holder?.status ?? 'pending', flow: holder?.flow ?? request.flow }
    },

    async markSent (request) {
      return markSent.immediate({ ...request, now: request.now ?? Date.now() })
    },

    async renew (signature, claimId, leaseMs, now = Date.now()) {
      return renewStatement.run(now + leaseMs, signature, claimId).changes === 1
    },

    async redeem ({ signature, claimId, now = Date.now(), answer, releasing }) {
      if (answer !== undefined || releasing !== undefined) return redeemKeeping.immediate(signature, claimId, now, answer, releasing)
      return redeemStatement.run(now, signature, claimId).changes === 1
    },

    async keptAnswer (signature, now = Date.now()) {
      const row = keptAnswerStatement.get(signature, now) as (Omit<KeptAnswer, 'receipt' | 'reached' | 'paymentId' | 'amount'> & { receipt: string, reached: number | null, paymentId: string | null, amount: string }) | undefined
      if (row === undefined) return undefined
      const { paymentId, ...kept } = row
      return { ...kept, amount: BigInt(row.amount), receipt: JSON.parse(row.receipt) as Record<string, unknown>, reached: row.reached === null ? null : row.reached === 1, ...(paymentId === null ? {} : { paymentId }) }
    },

    async claimOfPaymentId (payer, paymentId) {
      return paymentIdStatement.get(payer, paymentId) as { signature: string, status: ClaimStatus } | undefined
    },

    async cancelCall (callerRef) {
      return cancelCall.immediate(callerRef, Date.now())
    },

    async pruneAnswers (now = Date.now(), batchSize = Number.MAX_SAFE_INTEGER) {
      return pruneAnswers.immediate(now, batchSize)
    },

    async release (signature, claimId, now = Date.now()) {
      return release.immediate(signature, claimId, now)
    },

    async discard (signature, claimId) {
      return discardStatement.run(signature, claimId).changes === 1
    }
  }
}
