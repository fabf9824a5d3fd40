import fp from 'fastify-plugin'
import { createAuditLog } from '../../db/audit-log.js'
import { openDatabase, type SqliteDatabase } from '../../db/open-database.js'
import { createPaymentClaims } from '../../db/payment-claims.js'
import { loggableError } from '../../lib/errors/loggable-error.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: ReturnType<typeof createStore>
  }
}

const HOUR_MS = 3_600_000
const PRUNE_BATCH = 2000
const CHALLENGE_FLUSH_MS = 5000

function createStore (db: SqliteDatabase) {
  return {
    db,
    claims: createPaymentClaims(db),
    audit: createAuditLog(db),
    isHealthy (): boolean {
      try {
        return db.prepare('SELECT 1').pluck().get() === 1
      } catch {
        return false
      }
    }
  }
}

/** The SQLite file behind the replay store and the audit log; migrated on open, closed on shutdown. */
export default fp(async (fastify) => {
  const { DATABASE_PATH, AUDIT_RETENTION_DAYS, SQLITE_SYNCHRONOUS } = fastify.config
  const store = createStore(openDatabase(DATABASE_PATH, { synchronous: SQLITE_SYNCHRONOUS }))
  fastify.decorate('store', store)

  // Prunes in batches and yields between them, so requests keep flowing during a catch-up.
  let closing = false
  const prune = async () => {
    let removed = 0
    for (let batch = PRUNE_BATCH; batch === PRUNE_BATCH;) {
      if (closing) break // set by onClose while this loop yields
      batch = store.audit.prune(AUDIT_RETENTION_DAYS, Date.now(), PRUNE_BATCH)
      removed += batch
      await new Promise(resolve => setImmediate(resolve))
    }
    if (removed > 0) fastify.log.info({ removed }, 'pruned audit rows past retention')
  }
  const logFailure = (error: unknown) => fastify.log.error({ error: loggableError(error) }, 'audit pruning failed')
  prune().catch(logFailure)
  const pruneTimer = setInterval(() => { prune().catch(logFailure) }, HOUR_MS).unref()

  const flushTimer = setInterval(() => store.audit.flushUnpaid(), CHALLENGE_FLUSH_MS).unref()

  fastify.addHook('onClose', async () => {
    closing = true
    clearInterval(pruneTimer)
    clearInterval(flushTimer)
    store.audit.flushUnpaid()
    store.db.close()
  })
}, { name: 'store', fastify: '5.x', dependencies: ['config'] })
