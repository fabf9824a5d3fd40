import fp from 'fastify-plugin'
import { createAuditLog } from '../../db/audit-log.js'
import { openDatabase, type SqliteDatabase } from '../../db/open-database.js'
import { createPaymentClaims } from '../../db/payment-claims.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: ReturnType<typeof createStore>
  }
}

const HOUR_MS = 3_600_000

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

  const prune = () => {
    const removed = store.audit.prune(AUDIT_RETENTION_DAYS)
    if (removed > 0) fastify.log.info({ removed }, 'pruned audit rows past retention')
  }
  prune()
  const pruneTimer = setInterval(prune, HOUR_MS).unref()

  fastify.addHook('onClose', async () => {
    clearInterval(pruneTimer)
    store.db.close()
  })
}, { name: 'store', dependencies: ['config'] })
