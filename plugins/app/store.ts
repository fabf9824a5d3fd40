import fp from 'fastify-plugin'
import { openStore } from '../../db/open-store.js'
import type { Store } from '../../db/store.js'
import type { Clock } from '../../db/clocked-store.js'
import { loggableError } from '../../lib/errors/loggable-error.js'
import { storeUnavailable } from '../../lib/errors/store-unavailable.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
  }
}

const HOUR_MS = 3_600_000
const ANSWER_PRUNE_MS = 60_000
const PRUNE_BATCH = 2000
const CHALLENGE_FLUSH_MS = 5000

/**
 * Everything stored (claims, audit log, reputation aggregates, registry cache): PostgreSQL when
 * DATABASE_URL is set, else the SQLite file at DATABASE_PATH. Chosen here, once; migrated on open
 * (start-up waits for an unreachable PostgreSQL), closed on shutdown.
 */
export default fp(async (fastify, opts: { now?: Clock }) => {
  const { AUDIT_RETENTION_DAYS } = fastify.config
  const log = fastify.log.child({ component: 'store' })
  // Timed as it is built (metrics on): the app holds only the timed claims and audit log, and
  // the shutdown's claim ledger (plugins/app/shutdown.ts) wraps those same objects.
  const { metrics } = fastify
  // The store's errors as the service answers and logs them: an unreachable database is the 503 STORE_UNAVAILABLE.
  const storeLog = { info: log.info.bind(log), warn: log.warn.bind(log), loggable: loggableError }
  const store = await openStore(fastify.config, storeLog, {
    unavailable: storeUnavailable,
    ...(opts.now === undefined ? {} : { now: opts.now }),
    ...(metrics === null ? {} : { observe: (operation, durationMs) => metrics.storeOperation(operation, durationMs) })
  })
  fastify.decorate('store', store)

  // Prunes in batches and yields between them, so requests keep flowing during a catch-up.
  let closing = false
  const inBatches = async (pruneBatch: (batchSize: number) => Promise<number>) => {
    let removed = 0
    for (let batch = PRUNE_BATCH; batch === PRUNE_BATCH;) {
      if (closing) break // set by onClose while this loop yields
      batch = await pruneBatch(PRUNE_BATCH)
      removed += batch
      await new Promise(resolve => setImmediate(resolve))
    }
    return removed
  }
  const prune = async () => {
    const removed = await inBatches(async size => await store.audit.prune(AUDIT_RETENTION_DAYS, Date.now(), size))
    if (removed > 0) log.info({ removed }, 'pruned audit rows past retention')
  }
  // Kept answers go soon after their retention (DELIVERY_RETENTION_SECONDS), so the table holds
  // about one retention's worth of deliveries.
  const pruneAnswers = async () => {
    const removed = await inBatches(async size => await store.claims.pruneAnswers(Date.now(), size))
    if (removed > 0) log.debug({ removed }, 'pruned kept answers past retention')
    const tasks = await inBatches(async size => await store.a2aTasks.prune(Date.now(), size))
    if (tasks > 0) log.debug({ removed: tasks }, 'pruned A2A tasks past retention')
  }
  const logFailure = (message: string) => (error: unknown) => log.error({ error: loggableError(error) }, message)
  let pruning = prune().catch(logFailure('audit pruning failed'))
  let pruningAnswers = Promise.resolve()
  const pruneTimer = setInterval(() => { pruning = prune().catch(logFailure('audit pruning failed')) }, HOUR_MS).unref()
  const answersTimer = setInterval(() => { pruningAnswers = pruneAnswers().catch(logFailure('kept answers not pruned')) }, ANSWER_PRUNE_MS).unref()

  const flushUnpaid = async () => await store.audit.flushUnpaid().catch(logFailure('unpaid counters not written; kept for the next flush'))
  const flushTimer = setInterval(() => { flushUnpaid().catch(() => {}) }, CHALLENGE_FLUSH_MS).unref()

  fastify.addHook('onClose', async () => {
    closing = true
    clearInterval(pruneTimer)
    clearInterval(answersTimer)
    clearInterval(flushTimer)
    await pruning
    await pruningAnswers
    await flushUnpaid()
    await store.close()
  })
}, { name: 'store', fastify: '5.x', dependencies: ['config', 'metrics-registry'] })
