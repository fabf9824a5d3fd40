import { createA2aTasks } from './a2a-tasks.js'
import { startBackgroundCheckpoint } from './background-checkpoint.js'
import { createAuditLog } from './audit-log.js'
import { createLaunchFacts } from './launch-facts.js'
import { createServiceSecrets } from './service-secrets.js'
import { createPayerFailureLog } from './payer-failures.js'
import { createLimitCountLog } from './limit-counts.js'
import { openDatabase, type SqliteDatabase } from './open-database.js'
import { createPaymentClaims } from './payment-claims.js'
import { createRefunds } from './refunds.js'
import { createRegistryRepository } from './registry-repository.js'
import { createReputationQueries } from './reputation-queries.js'
import { createSqliteDeliveryEvidence } from './delivery-evidence.js'
import type { Store } from '../store.js'

export interface SqliteStore extends Store {
  readonly engine: 'sqlite'
  /** The open database, for tests and tools that read it directly. */
  readonly db: SqliteDatabase
}

export interface SqliteStoreOptions {
  synchronous?: 'NORMAL' | 'FULL'
  /** Told why a background checkpoint failed (the next one tries again). */
  checkpointFailed?: (message: string) => void
}

/** The WAL checkpointed off the event loop; SQLite's own automatic checkpoint again if the worker dies. */
function checkpointInBackground (db: SqliteDatabase, path: string, failed: (message: string) => void) {
  db.pragma('wal_autocheckpoint = 0')
  return startBackgroundCheckpoint(path, {
    failed,
    gone: () => { if (db.open) db.pragma('wal_autocheckpoint = 1000') }
  })
}

/**
 * The store on the SQLite file at `path` (WAL, shared by the processes of one machine), migrated
 * on open. `exclusive` serializes the tasks of this process only: another process may run the
 * same task meanwhile, which the repositories' transactions make harmless.
 */
export function createSqliteStore (path: string, options: SqliteStoreOptions = {}): SqliteStore {
  const db = openDatabase(path, options)
  const checkpoint = path === ':memory:' ? undefined : checkpointInBackground(db, path, options.checkpointFailed ?? (() => {}))
  const locks = new Map<string, Promise<unknown>>()
  return {
    engine: 'sqlite',
    db,
    claims: createPaymentClaims(db),
    audit: createAuditLog(db),
    registry: createRegistryRepository(db),
    reputation: createReputationQueries(db),
    deliveries: createSqliteDeliveryEvidence(db),
    a2aTasks: createA2aTasks(db),
    launchFacts: createLaunchFacts(db),
    secrets: createServiceSecrets(db),
    payerFailures: createPayerFailureLog(db),
    limitCounts: createLimitCountLog(db),
    refunds: createRefunds(db),
    async isHealthy () {
      try {
        return db.prepare('SELECT 1').pluck().get() === 1
      } catch {
        return false
      }
    },
    async exclusive (name, task) {
      const previous = locks.get(name) ?? Promise.resolve()
      const run = previous.catch(() => {}).then(task)
      const tail = run.catch(() => {})
      locks.set(name, tail)
      try {
        return await run
      } finally {
        if (locks.get(name) === tail) locks.delete(name)
      }
    },
    async close () {
      // The worker's connection first: the last one to close folds the WAL in and removes it.
      await checkpoint?.stop()
      if (db.open) db.close()
    }
  }
}
