import type pg from 'pg'
import { CANCEL_MEMORY_MS, type AnswerToKeep, type ClaimRequest, type ClaimResult, type ClaimState, type KeptAnswer, type PaymentClaims, type PaymentIdHolder, type SendMark, type SendMarkResult } from '../contracts/payment-claims.js'
import { createBatcher } from './batcher.js'
import type { DatabaseCall } from './connection.js'

const MAX_BATCH = 256
// Redeems wait for the WAL flush, one flush at a time on the server: one redeem statement at a
// time, while the redeems arriving meanwhile gather into the next, flushes as often and carries
// more per flush than two (bench section, same runs: 9,641 and 10,425 pairs/s with one, 7,981 and
// 8,502 with two, 7,834 and 8,329 with four).
const REDEEMS_IN_FLIGHT = 1
const DEADLOCK = '40P01'
// The database's clock when the caller gives no time: every instance then measures leases on one
// clock, whatever the drift between machines.
const CLOCK_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint'

// Each claim is decided by one statement: insert a new claim or take over a pending one whose
// lease ran out, returning the rows it took. Claims that arrive together share the statement (one
// round trip, one commit); rows are taken in signature order, so two instances' statements never
// wait on each other in a cycle. Only the claims it did not take (a proof in use or spent, rare)
// cost a second statement, STATUS, for the holder's status: a row gone by then (released) reads
// as pending, as a row a racing instance had not yet committed did.
//
// The statements are sent unnamed, never prepared once per connection: a named statement's
// generic plan, chosen after five runs while payment_claims was still small (a new store, or before
// autovacuum analyzed it), joins the unnest input to a sequential scan of the whole table and is
// kept for the connection's life, so every batch read every row (perf in the bench: hash_bytes,
// HeapTupleSatisfiesVisibility, SeqNext). Unnamed, each is planned with its arrays in hand (unnest
// knows their length) and the table's size now: index lookups. That costs a parse and a plan per
// statement, a batch's, not a call's.
//
// A row bought under a payment-identifier is taken over only by a claim carrying that id (anyone can
// rebuild a landed payload; only the buyer knows its id), and a stored id is never overwritten.
//
// A claim with a payment-identifier first looks up the payment the id already names for its payer
// (another signature): such a claim takes nothing and its row says which payment (named_by). Two
// statements that meet on a new id both find it free; the unique index on (payer, payment_id)
// then refuses the second, which claims again alone (takeClaims) and finds the first's row.
const CLAIM = {
  text: `
    WITH i AS (SELECT signature, flow, claim_id, lease_ms, service, payer, amount, resource, coalesce(now, ${CLOCK_MS}) AS now, payment_id, caller_ref
      FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::numeric[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[])
        AS u (signature, claim_id, lease_ms, service, payer, amount, resource, now, flow, payment_id, caller_ref)),
    named AS (SELECT i.signature AS named_by, c.signature, c.status FROM i
      JOIN payment_claims c ON c.payer = i.payer AND c.payment_id = i.payment_id AND c.signature <> i.signature),
    taken AS (INSERT INTO payment_claims AS c (signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at, payment_id, caller_ref, cancelled)
      SELECT i.signature, 'pending', i.flow, i.claim_id, i.now + i.lease_ms, i.service, i.payer, i.amount, i.resource, i.now, i.payment_id, i.caller_ref,
        EXISTS (SELECT 1 FROM cancelled_calls k WHERE k.caller_ref = i.caller_ref)
      FROM i WHERE NOT EXISTS (SELECT 1 FROM named WHERE named.named_by = i.signature)
      ORDER BY i.signature
      ON CONFLICT (signature) DO UPDATE SET
        claim_id = excluded.claim_id, lease_expires_at = excluded.lease_expires_at, service = excluded.service,
        payer = excluded.payer, amount = excluded.amount, resource = excluded.resource, claimed_at = excluded.claimed_at,
        payment_id = coalesce(c.payment_id, excluded.payment_id), caller_ref = excluded.caller_ref, cancelled = excluded.cancelled
      WHERE c.status IN ('pending', 'sent') AND c.flow = excluded.flow AND c.lease_expires_at <= excluded.claimed_at
        AND (c.payment_id IS NULL OR c.payment_id = excluded.payment_id)
      RETURNING c.signature, c.claim_id, c.status)
    SELECT signature, claim_id, status, NULL AS named_by FROM taken
    UNION ALL SELECT signature, NULL, status, named_by FROM named`
}
const STATUS = { text: 'SELECT signature, status, flow FROM payment_claims WHERE signature = ANY($1::text[])' }
const HELD = "c.signature = i.signature AND c.claim_id = i.claim_id AND c.status IN ('pending', 'sent')"
// A redeem keeps the answer it delivers (when it has one) in the same statement: a payment that is
// spent always has its answer for re-delivery. It also ends the holder's hold of its source token
// account, when it names one.
const REDEEM = {
  text: `WITH i AS (SELECT signature, claim_id, coalesce(now, ${CLOCK_MS}) AS now, request_key, status, content_type, body, receipt, retention_ms, releasing
      FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[])
        AS u (signature, claim_id, now, request_key, status, content_type, body, receipt, retention_ms, releasing)),
    released AS (DELETE FROM source_holds h USING i WHERE h.source = i.releasing AND h.holder = i.claim_id),
    redeemed AS (UPDATE payment_claims c SET status = 'redeemed', redeemed_at = i.now FROM i
      WHERE ${HELD}
      RETURNING c.signature, c.claim_id),
    kept AS (INSERT INTO kept_answers (signature, request_key, status, content_type, body, receipt, kept_at, expires_at)
      SELECT i.signature, i.request_key, i.status, i.content_type, i.body, i.receipt, i.now, i.now + i.retention_ms
      FROM i JOIN redeemed r ON r.signature = i.signature AND r.claim_id = i.claim_id
      WHERE i.body IS NOT NULL
      ON CONFLICT (signature) DO UPDATE SET request_key = excluded.request_key, status = excluded.status, content_type = excluded.content_type,
        body = excluded.body, receipt = excluded.receipt, reached = NULL, kept_at = excluded.kept_at, expires_at = excluded.expires_at)
    SELECT signature, claim_id FROM redeemed`
}
const KEPT_ANSWER = `SELECT a.signature, a.request_key AS "requestKey", a.status, a.content_type AS "contentType", a.body, a.receipt,
    CASE WHEN c.cancelled THEN false ELSE a.reached END AS reached, a.kept_at AS "keptAt", a.expires_at AS "expiresAt", c.payer, c.amount, c.service, c.resource, c.payment_id AS "paymentId"
  FROM kept_answers a JOIN payment_claims c ON c.signature = a.signature
  WHERE a.signature = $1 AND a.expires_at > coalesce($2::bigint, ${CLOCK_MS})`
const EXPIRED = `SELECT signature FROM kept_answers WHERE expires_at <= coalesce($1::bigint, ${CLOCK_MS}) ORDER BY expires_at LIMIT $2`
const PRUNE_ANSWERS = `WITH expired AS (${EXPIRED}),
    forgotten AS (DELETE FROM cancelled_calls WHERE expires_at <= coalesce($1::bigint, ${CLOCK_MS})),
    freed AS (UPDATE payment_claims c SET payment_id = NULL FROM expired e WHERE c.signature = e.signature AND c.payment_id IS NOT NULL)
  DELETE FROM kept_answers a USING expired e WHERE a.signature = e.signature`
const UNIQUE_VIOLATION = '23505'
// Remembered for a claim taken after the notice (it reached another instance first), and set on the claims there are.
const CANCEL_CALL = `WITH remembered AS (INSERT INTO cancelled_calls (caller_ref, expires_at) VALUES ($1, ${CLOCK_MS} + $2)
    ON CONFLICT (caller_ref) DO UPDATE SET expires_at = excluded.expires_at)
  UPDATE payment_claims SET cancelled = true WHERE caller_ref = $1`
// renew: a new lease for the holder.
const RENEW = {
  text: `UPDATE payment_claims c SET lease_expires_at = coalesce(i.now, ${CLOCK_MS}) + i.lease_ms
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS i (signature, claim_id, now, lease_ms)
    WHERE ${HELD}
    RETURNING c.signature, c.claim_id`
}
// The sent mark: each source token account is held (taken if free, its hold run out, or held by
// this holder already; in source order, so two statements never wait on each other in a cycle),
// and only the claims whose source was held are marked sent, with a new lease. A cancelled MCP
// call is never marked sent: nothing is settled for a caller that left. One statement, so the hold
// and the mark commit (and reach the disk) together.
const MARK_SENT = {
  text: `WITH i AS (SELECT signature, claim_id, coalesce(now, ${CLOCK_MS}) AS now, lease_ms, source, hold_ms
      FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[])
        AS u (signature, claim_id, now, lease_ms, source, hold_ms)),
    held AS (INSERT INTO source_holds AS h (source, holder, expires_at)
      SELECT i.source, i.claim_id, i.now + i.hold_ms FROM i ORDER BY i.source
      ON CONFLICT (source) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE h.holder = excluded.holder OR h.expires_at <= (SELECT i.now FROM i WHERE i.claim_id = excluded.holder)
      RETURNING h.holder),
    marked AS (UPDATE payment_claims c SET status = 'sent', lease_expires_at = i.now + i.lease_ms
      FROM i JOIN held ON held.holder = i.claim_id
      WHERE ${HELD} AND NOT c.cancelled
      RETURNING c.claim_id)
    SELECT i.claim_id, EXISTS (SELECT 1 FROM held WHERE held.holder = i.claim_id) AS held,
      EXISTS (SELECT 1 FROM marked WHERE marked.claim_id = i.claim_id) AS marked
    FROM i`
}
// A pending claim is deleted; a sent one keeps its row with its lease ended (only the chain frees it).
const RELEASE = {
  text: `WITH i AS (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u (signature, claim_id, now)),
    deleted AS (DELETE FROM payment_claims c USING i
      WHERE c.signature = i.signature AND c.claim_id = i.claim_id AND c.status = 'pending'
      RETURNING c.signature, c.claim_id),
    ended AS (UPDATE payment_claims c SET lease_expires_at = coalesce(i.now, ${CLOCK_MS}) FROM i
      WHERE c.signature = i.signature AND c.claim_id = i.claim_id AND c.status = 'sent'
      RETURNING c.signature, c.claim_id)
    SELECT * FROM deleted UNION ALL SELECT * FROM ended`
}
const DISCARD = {
  text: `DELETE FROM payment_claims c USING unnest($1::text[], $2::text[]) AS i (signature, claim_id)
    WHERE ${HELD}
    RETURNING c.signature, c.claim_id`
}

/** A statement that met a deadlock (rare: another statement took the same rows in another order) runs once more. */
function deadlockRetried (callDatabase: DatabaseCall) {
  return async function query<R extends pg.QueryResultRow> (pool: pg.Pool, config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    return await callDatabase(async () => {
      try {
        return await pool.query<R>(config)
      } catch (error) {
        if ((error as { code?: unknown }).code !== DEADLOCK) throw error
        return await pool.query<R>(config)
      }
    })
  }
}

/**
 * The anti-replay store on PostgreSQL, atomic across every instance: each claim, redeem and
 * release is decided by one statement, and the calls waiting together share it. Redeems go
 * through `durable` (the commit waits for the WAL flush: a delivered proof is spent for good);
 * claims, releases and status reads through `fast`, whose commits do not wait (see postgres-store.ts).
 */
export function createPostgresPaymentClaims (pools: { durable: pg.Pool, fast: pg.Pool }, options: { maxInFlight: number, callDatabase: DatabaseCall }): PaymentClaims {
  const query = deadlockRetried(options.callDatabase)
  const batching = { maxInFlight: options.maxInFlight, maxBatch: MAX_BATCH }

  // A claim taken (named_by null), or the payment a claim's payment-identifier names (named_by: that claim's signature).
  type Taken = { signature: string, claim_id: string | null, status: ClaimState['status'], named_by: string | null }
  const claimStatement = async (batch: ClaimRequest[]) => (await query<Taken>(pools.fast, {
    ...CLAIM,
    values: [batch.map(r => r.signature), batch.map(r => r.claimId), batch.map(r => r.leaseMs), batch.map(r => r.service),
      batch.map(r => r.payer), batch.map(r => r.amount.toString()), batch.map(r => r.resource), batch.map(r => r.now ?? null), batch.map(r => r.flow),
      batch.map(r => r.paymentId ?? null), batch.map(r => r.callerRef ?? null)]
  })).rows
  // A payment-identifier taken by a statement running at the same time breaks the unique index and
  // with it the whole statement: the batch is then claimed one by one; a claim refused again (the
  // other statement has not committed yet) is lost like a race.
  async function takeClaims (batch: ClaimRequest[]): Promise<Taken[]> {
    try {
      return await claimStatement(batch)
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error
      const one = await Promise.all(batch.map(async request => await claimStatement([request]).catch((failure: unknown) => {
        if ((failure as { code?: unknown }).code === UNIQUE_VIOLATION) return []
        throw failure
      })))
      return one.flat()
    }
  }

  const claim = createBatcher(async (requests: ClaimRequest[]): Promise<ClaimResult[]> => {
    // One row per signature in a statement (a row cannot be claimed twice by one statement): the
    // first request of a signature competes, the others in the batch lose to it.
    const first = new Map<string, ClaimRequest>()
    for (const request of requests) if (!first.has(request.signature)) first.set(request.signature, request)
    const unique = [...first.values()]
    const rows = await takeClaims(unique)
    const taken = new Map(rows.filter(row => row.named_by === null).map(row => [row.signature, row]))
    const named = new Map(rows.filter(row => row.named_by !== null).map((row): [string, PaymentIdHolder] => [row.named_by as string, { signature: row.signature, status: row.status }]))
    let held: Map<string, ClaimState> | undefined
    if (taken.size + named.size < unique.length) {
      const lost = unique.filter(r => !taken.has(r.signature) && !named.has(r.signature)).map(r => r.signature)
      const { rows: statuses } = await query<{ signature: string } & ClaimState>(pools.fast, { ...STATUS, values: [lost] })
      held = new Map(statuses.map(row => [row.signature, { status: row.status, flow: row.flow }]))
    }
    return requests.map((request): ClaimResult => {
      const paymentIdHolder = first.get(request.signature) === request ? named.get(request.signature) : undefined
      if (paymentIdHolder !== undefined) return { claimed: false, paymentIdHolder }
      const winner = taken.get(request.signature)
      if (winner?.claim_id === request.claimId) return { claimed: true, sent: winner.status === 'sent' }
      if (winner !== undefined) return { claimed: false, status: 'pending', flow: request.flow } // a twin in this batch won
      const holder = held?.get(request.signature)
      return { claimed: false, status: holder?.status ?? 'pending', flow: holder?.flow ?? request.flow }
    })
  }, batching)

  const status = createBatcher(async (signatures: string[]) => {
    const { rows } = await query<{ signature: string } & ClaimState>(pools.fast, { ...STATUS, values: [[...new Set(signatures)]] })
    const bySignature = new Map(rows.map((row): [string, ClaimState] => [row.signature, { status: row.status, flow: row.flow }]))
    return signatures.map(signature => bySignature.get(signature))
  }, batching)

  // Holder operations: a (signature, claim id) pair names one claim; a pair twice in a batch is
  // answered once, as the second of two sequential calls would be (false).
  interface HolderCall { signature: string, claimId: string, now?: number, leaseMs?: number, answer?: AnswerToKeep, releasing?: string }
  function holderBatch (pool: pg.Pool, statement: pg.QueryConfig, columns: Array<(call: HolderCall) => unknown>, maxInFlight = options.maxInFlight) {
    return createBatcher(async (items: HolderCall[]) => {
      const { rows } = await query<{ signature: string, claim_id: string }>(pool, { ...statement, values: columns.map(column => items.map(column)) })
      const done = new Set(rows.map(row => `${row.signature} ${row.claim_id}`))
      return items.map(item => done.delete(`${item.signature} ${item.claimId}`))
    }, { ...batching, maxInFlight })
  }
  const signature = (call: HolderCall) => call.signature
  const claimId = (call: HolderCall) => call.claimId
  const now = (call: HolderCall) => call.now ?? null
  const leaseMs = (call: HolderCall) => call.leaseMs
  const answer = (field: keyof AnswerToKeep) => (call: HolderCall) => {
    const value = call.answer?.[field]
    return value === undefined ? null : field === 'receipt' ? JSON.stringify(value) : value
  }
  const redeem = holderBatch(pools.durable, REDEEM, [signature, claimId, now, answer('requestKey'), answer('status'), answer('contentType'),
    answer('body'), answer('receipt'), answer('retentionMs'), call => call.releasing ?? null], REDEEMS_IN_FLIGHT)
  const releaseSource = async (source: string, holder: string) =>
    ((await query(pools.fast, { text: 'DELETE FROM source_holds WHERE source = $1 AND holder = $2', values: [source, holder] })).rowCount ?? 0) === 1
  // A sent mark must outlive a crash of the database server before the transaction leaves: durable.
  // One mark per source in a statement (a row cannot be taken twice by one statement): the first
  // competes, the others find the source busy and ask again, as a second settlement would.
  const markSent = createBatcher(async (marks: Array<Required<Omit<SendMark, 'now'>> & { now: number | null }>): Promise<SendMarkResult[]> => {
    const first = new Map<string, typeof marks[number]>()
    for (const mark of marks) if (!first.has(mark.source)) first.set(mark.source, mark)
    const unique = [...first.values()]
    const { rows } = await query<{ claim_id: string, held: boolean, marked: boolean }>(pools.durable, {
      ...MARK_SENT,
      values: [unique.map(m => m.signature), unique.map(m => m.claimId), unique.map(m => m.now), unique.map(m => m.leaseMs), unique.map(m => m.source), unique.map(m => m.holdMs)]
    })
    const byClaim = new Map(rows.map(row => [row.claim_id, row]))
    // Held but not marked (the claim was taken over or cancelled): the hold is given back.
    const unmarked = unique.filter(mark => byClaim.get(mark.claimId)?.held === true && !byClaim.get(mark.claimId)?.marked)
    await Promise.all(unmarked.map(async mark => await releaseSource(mark.source, mark.claimId)))
    return marks.map(mark => {
      const row = first.get(mark.source) === mark ? byClaim.get(mark.claimId) : undefined
      return row?.marked === true ? 'sent' : row?.held === true ? 'not-held' : 'source-busy'
    })
  }, batching)
  const renew = holderBatch(pools.fast, RENEW, [signature, claimId, now, leaseMs])
  const release = holderBatch(pools.fast, RELEASE, [signature, claimId, now])
  const discard = holderBatch(pools.durable, DISCARD, [signature, claimId])

  return {
    releaseSource,
    status: async (signature) => await status(signature),
    claim: async (request) => await claim(request),
    markSent: async (request) => await markSent({ ...request, now: request.now ?? null }),
    renew: async (signature, claimId, leaseMs, now) => await renew({ signature, claimId, leaseMs, now }),
    redeem: async (request) => await redeem(request),
    async keptAnswer (signature, now) {
      const { rows } = await query<Omit<KeptAnswer, 'receipt' | 'expiresAt' | 'keptAt' | 'paymentId' | 'amount'> & { receipt: string, expiresAt: string, keptAt: string, paymentId: string | null, amount: string }>(pools.fast,
        { text: KEPT_ANSWER, values: [signature, now ?? null] })
      if (rows.length === 0) return undefined
      const { paymentId, ...kept } = rows[0]
      return {
        ...kept,
        amount: BigInt(kept.amount),
        receipt: JSON.parse(kept.receipt) as Record<string, unknown>,
        keptAt: Number(kept.keptAt),
        expiresAt: Number(kept.expiresAt),
        ...(paymentId === null ? {} : { paymentId })
      }
    },
    async claimOfPaymentId (payer, paymentId) {
      const { rows } = await query<{ signature: string, status: ClaimState['status'] }>(pools.fast,
        { text: 'SELECT signature, status FROM payment_claims WHERE payer = $1 AND payment_id = $2', values: [payer, paymentId] })
      return rows[0]
    },
    async cancelCall (callerRef) {
      return ((await query(pools.durable, { text: CANCEL_CALL, values: [callerRef, CANCEL_MEMORY_MS] })).rowCount ?? 0) > 0
    },
    async pruneAnswers (now, batchSize = Number.MAX_SAFE_INTEGER) {
      return (await query(pools.fast, { text: PRUNE_ANSWERS, values: [now ?? null, batchSize] })).rowCount ?? 0
    },
    release: async (signature, claimId, now) => await release({ signature, claimId, now }),
    discard: async (signature, claimId) => await discard({ signature, claimId })
  }
}
