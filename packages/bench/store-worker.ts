// One process hammering the replay store: claim then redeem, each pair on a signature of its own,
// for STORE_SECONDS after the parent says go, with STORE_CONCURRENCY pairs in flight. Reports the
// pairs it completed. STORE_DATABASE is a SQLite file path or a postgres:// URL.
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { ClaimRequest } from '../../db/contracts/payment-claims.js'
import { openPostgresStore, type PostgresStore } from '../../db/postgres/postgres-store.js'
import { createSqliteStore } from '../../db/sqlite/sqlite-store.js'
import type { Store } from '../../db/store.js'

const target = process.env.STORE_DATABASE as string
const seconds = Number(process.env.STORE_SECONDS)
const tag = process.env.STORE_TAG as string
const concurrency = Number(process.env.STORE_CONCURRENCY ?? '1')
const poolSize = Number(process.env.STORE_POOL_SIZE ?? '8')
const store: Store = target.startsWith('postgres')
  ? await openPostgresStore({ url: target, poolSize })
  : createSqliteStore(target)
// STORE_NAIVE=1: the comparison the issue names, a client sending one INSERT ... ON CONFLICT and
// one UPDATE per proof, each on its own, through the same pool.
const naive = process.env.STORE_NAIVE === '1' && store.engine === 'postgres' ? naiveClaims((store as PostgresStore).pool) : undefined

function naiveClaims (pool: pg.Pool) {
  return {
    async claim (request: ClaimRequest) {
      const now = Date.now()
      const { rows } = await pool.query(`INSERT INTO payment_claims (signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at)
        VALUES ($1, 'pending', 'proof', $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (signature) DO NOTHING RETURNING claim_id`,
      [request.signature, request.claimId, now + request.leaseMs, request.service, request.payer, request.amount.toString(), request.resource, now])
      return { claimed: rows.length === 1 }
    },
    async redeem ({ signature, claimId }: { signature: string, claimId: string }) {
      const { rowCount } = await pool.query("UPDATE payment_claims SET status = 'redeemed', redeemed_at = $3 WHERE signature = $1 AND claim_id = $2 AND status = 'pending'",
        [signature, claimId, Date.now()])
      return rowCount === 1
    }
  }
}
const SIGNATURE_LENGTH = 88 // a base58 64-byte signature is 87 or 88 characters

async function pairs (): Promise<{ pairs: number, seconds: number }> {
  const request = { claimId: '', flow: 'proof' as const, service: 'fetch-price', payer: 'Fe8T7EDJ2EoLcpAXUjbKETZsycerL5AHKkcRz8hporXW', amount: 50_000n, resource: 'http://127.0.0.1/api/fetch-price/SOL', leaseMs: 60_000 }
  const deadline = performance.now() + seconds * 1000
  const started = performance.now()
  let next = 0
  let done = 0
  const worker = async () => {
    while (performance.now() < deadline) {
      const signature = `${tag}${next++}`.padStart(SIGNATURE_LENGTH, '1')
      const claimId = randomUUID()
      const claims = naive ?? store.claims
      if (!(await claims.claim({ ...request, signature, claimId })).claimed) throw new Error(`claim of a new signature ${signature} lost`)
      if (!await claims.redeem({ signature, claimId })) throw new Error(`redeem of ${signature} failed`)
      done++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { pairs: done, seconds: (performance.now() - started) / 1000 }
}

process.once('message', () => {
  pairs().then(async result => {
    await store.close()
    process.send?.(result, () => process.exit(0))
  }, (error: unknown) => {
    console.error(error)
    process.exit(1)
  })
})
process.send?.('ready')
