import type { SqliteDatabase } from './open-database.js'

export interface ClaimRequest {
  signature: string
  claimId: string
  service: string
  payer: string
  amount: bigint
  resource: string
  leaseMs: number
  /** Unix ms; omitted: the database server's clock on PostgreSQL (one clock for every instance), this process's on SQLite. */
  now?: number
}

export type ClaimStatus = 'pending' | 'redeemed'

export type ClaimResult =
  | { claimed: true }
  | { claimed: false, status: ClaimStatus }

/**
 * The anti-replay store, the same on every engine: a proof (transaction signature, or any other
 * unique payment id) is claimed by exactly one request, redeemed once on delivery, or released
 * for another try. Every method is one atomic operation of the database.
 */
export interface PaymentClaims {
  /** 'redeemed', 'pending' or undefined: a cheap look before any RPC work. */
  status (signature: string): Promise<ClaimStatus | undefined>
  /** Takes the proof (new, or a pending one whose lease ran out), or says who holds it. */
  claim (request: ClaimRequest): Promise<ClaimResult>
  /** Marks the proof spent. False means this request no longer holds the claim and must not deliver. */
  redeem (signature: string, claimId: string, now?: number): Promise<boolean>
  /** Gives the proof back after a failed delivery, so the buyer can retry with it. */
  release (signature: string, claimId: string): Promise<boolean>
}

/**
 * The anti-replay store on SQLite. Each decision is one SQL statement, so it is atomic across
 * every process sharing the database file. Synchronous underneath; Promises outside.
 */
export function createPaymentClaims (db: SqliteDatabase): PaymentClaims {
  // Insert a new claim, or take over one whose lease ran out (a crashed or stuck request).
  // A redeemed row or a live lease makes the WHERE false, so nothing is returned.
  const claimStatement = db.prepare(`
    INSERT INTO payment_claims (signature, status, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at)
    VALUES (@signature, 'pending', @claimId, @leaseExpiresAt, @service, @payer, @amount, @resource, @now)
    ON CONFLICT (signature) DO UPDATE SET
      claim_id = excluded.claim_id, lease_expires_at = excluded.lease_expires_at, service = excluded.service,
      payer = excluded.payer, amount = excluded.amount, resource = excluded.resource, claimed_at = excluded.claimed_at
    WHERE payment_claims.status = 'pending' AND payment_claims.lease_expires_at <= excluded.claimed_at
    RETURNING claim_id`).pluck()
  const statusStatement = db.prepare('SELECT status FROM payment_claims WHERE signature = ?').pluck()
  const redeemStatement = db.prepare(`
    UPDATE payment_claims SET status = 'redeemed', redeemed_at = ?
    WHERE signature = ? AND claim_id = ? AND status = 'pending'`)
  const releaseStatement = db.prepare(`
    DELETE FROM payment_claims WHERE signature = ? AND claim_id = ? AND status = 'pending'`)

  return {
    async status (signature) {
      return statusStatement.get(signature) as ClaimStatus | undefined
    },

    async claim (request) {
      const now = request.now ?? Date.now()
      const winner = claimStatement.get({
        signature: request.signature,
        claimId: request.claimId,
        leaseExpiresAt: now + request.leaseMs,
        service: request.service,
        payer: request.payer,
        amount: request.amount.toString(),
        resource: request.resource,
        now
      })
      if (winner === request.claimId) return { claimed: true }
      // Lost the race: say why. A row deleted in between reads as still in progress.
      const status = (statusStatement.get(request.signature) as ClaimStatus | undefined) ?? 'pending'
      return { claimed: false, status }
    },

    async redeem (signature, claimId, now = Date.now()) {
      return redeemStatement.run(now, signature, claimId).changes === 1
    },

    async release (signature, claimId) {
      return releaseStatement.run(signature, claimId).changes === 1
    }
  }
}
