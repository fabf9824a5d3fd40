import type pg from 'pg'
import type { ClaimStatus, PaymentClaims } from '../payment-claims.js'
import { callDatabase } from './connection.js'

// The database's clock when the caller gives no time: every instance then measures leases on
// one clock, whatever the drift between machines.
const NOW = "coalesce($8::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)"

// One statement, one round trip: insert a new claim or take over a pending one whose lease ran
// out; when neither happens, report the holder's status from the statement's snapshot. A row
// committed by a racing request after that snapshot is invisible to it: NULL, read as pending.
const CLAIM = {
  name: 'tm-claim',
  text: `
    WITH taken AS (
      INSERT INTO payment_claims AS c (signature, status, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at)
      SELECT $1, 'pending', $2, t.now + $3, $4, $5, $6, $7, t.now FROM (SELECT ${NOW} AS now) t
      ON CONFLICT (signature) DO UPDATE SET
        claim_id = excluded.claim_id, lease_expires_at = excluded.lease_expires_at, service = excluded.service,
        payer = excluded.payer, amount = excluded.amount, resource = excluded.resource, claimed_at = excluded.claimed_at
      WHERE c.status = 'pending' AND c.lease_expires_at <= excluded.claimed_at
      RETURNING claim_id
    )
    SELECT (SELECT claim_id FROM taken) AS taken, (SELECT status FROM payment_claims WHERE signature = $1) AS status`
}
const STATUS = { name: 'tm-claim-status', text: 'SELECT status FROM payment_claims WHERE signature = $1' }
const REDEEM = {
  name: 'tm-claim-redeem',
  text: `UPDATE payment_claims SET status = 'redeemed', redeemed_at = coalesce($3::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
    WHERE signature = $1 AND claim_id = $2 AND status = 'pending'`
}
const RELEASE = { name: 'tm-claim-release', text: "DELETE FROM payment_claims WHERE signature = $1 AND claim_id = $2 AND status = 'pending'" }

/** The anti-replay store on PostgreSQL: each step one prepared statement, atomic across every instance. */
export function createPostgresPaymentClaims (pool: pg.Pool): PaymentClaims {
  return {
    async status (signature) {
      const { rows } = await callDatabase(async () => await pool.query<{ status: ClaimStatus }>({ ...STATUS, values: [signature] }))
      return rows[0]?.status
    },

    async claim (request) {
      const { rows } = await callDatabase(async () => await pool.query<{ taken: string | null, status: ClaimStatus | null }>({
        ...CLAIM,
        values: [request.signature, request.claimId, request.leaseMs, request.service, request.payer, request.amount.toString(), request.resource, request.now ?? null]
      }))
      if (rows[0].taken === request.claimId) return { claimed: true }
      return { claimed: false, status: rows[0].status ?? 'pending' }
    },

    async redeem (signature, claimId, now) {
      const { rowCount } = await callDatabase(async () => await pool.query({ ...REDEEM, values: [signature, claimId, now ?? null] }))
      return rowCount === 1
    },

    async release (signature, claimId) {
      const { rowCount } = await callDatabase(async () => await pool.query({ ...RELEASE, values: [signature, claimId] }))
      return rowCount === 1
    }
  }
}
