import type { ClaimState, ClaimStatus, PaymentClaims } from '../contracts/payment-claims.js'
import type { SqliteDatabase } from './open-database.js'

/**
 * The anti-replay store on SQLite. Each decision is one SQL statement (release: two, in one
 * transaction), so it is atomic across every process sharing the database file. Synchronous
 * underneath; Promises outside.
 */
export function createPaymentClaims (db: SqliteDatabase): PaymentClaims {
  // Insert a new claim, or take over one of the same flow whose lease ran out (a crashed, stuck
  // or pending request). A redeemed row, a live lease or another flow makes the WHERE false, so
  // nothing is returned. A taken-over row keeps its status: 'sent' stays sent.
  const claimStatement = db.prepare(`
    INSERT INTO payment_claims (signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at)
    VALUES (@signature, 'pending', @flow, @claimId, @leaseExpiresAt, @service, @payer, @amount, @resource, @now)
    ON CONFLICT (signature) DO UPDATE SET
      claim_id = excluded.claim_id, lease_expires_at = excluded.lease_expires_at, service = excluded.service,
      payer = excluded.payer, amount = excluded.amount, resource = excluded.resource, claimed_at = excluded.claimed_at
    WHERE payment_claims.status IN ('pending', 'sent') AND payment_claims.flow = excluded.flow
      AND payment_claims.lease_expires_at <= excluded.claimed_at
    RETURNING claim_id AS claimId, status`)
  const statusStatement = db.prepare('SELECT status, flow FROM payment_claims WHERE signature = ?')
  const markSentStatement = db.prepare(`
    UPDATE payment_claims SET status = 'sent', lease_expires_at = ?
    WHERE signature = ? AND claim_id = ? AND status IN ('pending', 'sent')`)
  const renewStatement = db.prepare(`
    UPDATE payment_claims SET lease_expires_at = ?
    WHERE signature = ? AND claim_id = ? AND status IN ('pending', 'sent')`)
  const redeemStatement = db.prepare(`
    UPDATE payment_claims SET status = 'redeemed', redeemed_at = ?
    WHERE signature = ? AND claim_id = ? AND status IN ('pending', 'sent')`)
  const deletePending = db.prepare(`
    DELETE FROM payment_claims WHERE signature = ? AND claim_id = ? AND status = 'pending'`)
  const endSentLease = db.prepare(`
    UPDATE payment_claims SET lease_expires_at = ? WHERE signature = ? AND claim_id = ? AND status = 'sent'`)
  const release = db.transaction((signature: string, claimId: string, now: number) =>
    deletePending.run(signature, claimId).changes + endSentLease.run(now, signature, claimId).changes === 1)
  const discardStatement = db.prepare(`
    DELETE FROM payment_claims WHERE signature = ? AND claim_id = ? AND status IN ('pending', 'sent')`)

  // Take the source if nobody holds it, its hold ran out, or this holder holds it already.
  const holdStatement = db.prepare(`
    INSERT INTO source_holds (source, holder, expires_at) VALUES (@source, @holder, @expiresAt)
    ON CONFLICT (source) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE source_holds.expires_at <= @now OR source_holds.holder = excluded.holder
    RETURNING holder`).pluck()
  const releaseSourceStatement = db.prepare('DELETE FROM source_holds WHERE source = ? AND holder = ?')

  return {
    async holdSource (source, holder, ttlMs, now = Date.now()) {
      return holdStatement.get({ source, holder, expiresAt: now + ttlMs, now }) === holder
    },

    async releaseSource (source, holder) {
      return releaseSourceStatement.run(source, holder).changes === 1
    },

    async status (signature) {
      return statusStatement.get(signature) as ClaimState | undefined
    },

    async claim (request) {
      const now = request.now ?? Date.now()
      const winner = claimStatement.get({
        signature: request.signature,
        claimId: request.claimId,
        flow: request.flow,
        leaseExpiresAt: now + request.leaseMs,
        service: request.service,
        payer: request.payer,
        amount: request.amount.toString(),
        resource: request.resource,
        now
      }) as { claimId: string, status: ClaimStatus } | undefined
      if (winner?.claimId === request.claimId) return { claimed: true, sent: winner.status === 'sent' }
      // Lost the race: say why. A row deleted in between reads as still in progress.
      const holder = statusStatement.get(request.signature) as ClaimState | undefined
      return { claimed: false, status: holder?.status ?? 'pending', flow: holder?.flow ?? request.flow }
    },

    async markSent (signature, claimId, leaseMs, now = Date.now()) {
      return markSentStatement.run(now + leaseMs, signature, claimId).changes === 1
    },

    async renew (signature, claimId, leaseMs, now = Date.now()) {
      return renewStatement.run(now + leaseMs, signature, claimId).changes === 1
    },

    async redeem (signature, claimId, now = Date.now()) {
      return redeemStatement.run(now, signature, claimId).changes === 1
    },

    async release (signature, claimId, now = Date.now()) {
      return release.immediate(signature, claimId, now)
    },

    async discard (signature, claimId) {
      return discardStatement.run(signature, claimId).changes === 1
    }
  }
}
