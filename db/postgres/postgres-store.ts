import type pg from 'pg'
import type { Store } from '../store.js'
import { createPostgresA2aTasks } from './a2a-tasks.js'
import { createPostgresAuditLog } from './audit-log.js'
import { createPostgresLaunchFacts } from './launch-facts.js'
import { createPostgresServiceSecrets } from './service-secrets.js'
import { createPostgresPayerFailureLog } from './payer-failures.js'
import { createPostgresLimitCountLog } from './limit-counts.js'
import { createPostgresRefunds } from './refunds.js'
import type { UnavailableError } from '../contracts/store-unavailable.js'
import { createPool, databaseCall } from './connection.js'
import { applyPostgresMigrations } from './migrate.js'
import { createPostgresPaymentClaims } from './payment-claims.js'
import { createPostgresRegistryRepository } from './registry-repository.js'
import { createPostgresReputationQueries } from './reputation-queries.js'
import { createPostgresDeliveryEvidence } from './delivery-evidence.js'

export interface PostgresStore extends Store {
  readonly engine: 'postgres'
  /** The pool, for tests and tools that read the database directly. */
  readonly pool: pg.Pool
}

export interface PostgresStoreOptions {
  url: string
  poolSize: number
  /** An idle connection broke (the server restarted or went away); it is replaced on next use. */
  onIdleError?: (error: Error) => void
  /** The error an operation throws when the database cannot answer (StoreUnavailableError when not given). */
  unavailable?: UnavailableError
}

const HEALTH_TIMEOUT_MS = 2000

/**
 * The store on PostgreSQL: one pool shared by every part. Opening applies the migrations under an
 * advisory lock; it throws what the first connection met (unreachable, wrong password, ...), and
 * the caller decides whether to wait and retry.
 */
export async function openPostgresStore (options: PostgresStoreOptions): Promise<PostgresStore> {
  const onIdleError = options.onIdleError ?? (() => {})
  const callDatabase = databaseCall(options.unavailable)
  const pool = createPool(options.url, options.poolSize, onIdleError)
  try {
    await applyPostgresMigrations(pool)
  } catch (error) {
    await pool.end().catch(() => {})
    throw error
  }
  // Claims and releases commit without waiting for the WAL flush (synchronous_commit off): a
  // crash of the database server may forget the last fraction of a second of them, which only
  // frees proofs no delivery went out for, because a delivery needs its redeem, and redeems (like
  // everything else) wait for the flush, which also makes every earlier claim durable. A quarter
  // of the pool again, as many connections as claim statements run at once.
  const claimsPoolSize = Math.max(1, Math.ceil(options.poolSize / 4))
  const claimsPool = createPool(options.url, claimsPoolSize, onIdleError, '-c synchronous_commit=off')
  let closing: Promise<void> | undefined
  return {
    engine: 'postgres',
    pool,
    // Few, large statements (one commit and one WAL flush for many claims) measured faster than
    // one per connection.
    claims: createPostgresPaymentClaims({ durable: pool, fast: claimsPool }, { maxInFlight: claimsPoolSize, callDatabase }),
    audit: createPostgresAuditLog({ durable: pool, fast: claimsPool }, callDatabase),
    registry: createPostgresRegistryRepository(pool, callDatabase),
    reputation: createPostgresReputationQueries(pool, callDatabase),
    deliveries: createPostgresDeliveryEvidence(pool, callDatabase),
    a2aTasks: createPostgresA2aTasks(pool, callDatabase),
    launchFacts: createPostgresLaunchFacts(pool, callDatabase),
    secrets: createPostgresServiceSecrets(pool, callDatabase),
    payerFailures: createPostgresPayerFailureLog(pool, callDatabase),
    limitCounts: createPostgresLimitCountLog(pool, callDatabase),
    refunds: createPostgresRefunds(pool, callDatabase),
    // Bounded as a whole (waiting for a connection included): a health check must answer promptly.
    async isHealthy () {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<boolean>(resolve => { timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS) })
      const check = pool.query('SELECT 1 AS up').then(result => result.rows[0]?.up === 1, () => false)
      try {
        return await Promise.race([check, timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    // A session advisory lock on a connection of its own, held for the task: every instance
    // queues on it, and a crashed holder's lock goes with its connection.
    async exclusive (name, task) {
      const client = await callDatabase(async () => await pool.connect())
      let failed = false
      try {
        await callDatabase(async () => await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', ['token-merchant:' + name]))
        try {
          return await task()
        } finally {
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', ['token-merchant:' + name]).catch(() => { failed = true })
        }
      } catch (error) {
        failed = true
        throw error
      } finally {
        client.release(failed)
      }
    },
    async close () {
      await (closing ??= Promise.all([pool.end(), claimsPool.end()]).then(() => {}))
    }
  }
}
