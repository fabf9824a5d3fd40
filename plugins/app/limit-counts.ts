import fp from 'fastify-plugin'
import { loggableError } from '../../lib/errors/loggable-error.js'
import { createSharedCounts, type SharedCounts } from '../../lib/limits/shared-counts.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The busiest clients' counts of every instance sharing the store: RATE_LIMIT_MAX, PROOF_FAILURE_LIMIT and the request limits hold across them. */
    limitCounts: SharedCounts
  }
}

/** How often this instance's figures are written and the others' read: the lag of a limit across instances. */
const SYNC_MS = 5000

/**
 * The limits' counts shared through the store (lib/limits/shared-counts.ts), written and read every
 * SYNC_MS. A store that does not answer leaves each instance with its own counts meanwhile.
 */
export default fp(async (fastify) => {
  const log = fastify.log.child({ component: 'limit-counts' })
  const counts = createSharedCounts({ log: fastify.store.limitCounts })
  fastify.decorate('limitCounts', counts)
  let failing = false
  const sync = async () => {
    try {
      await counts.sync()
      if (failing) log.info('the shared limit counts are read again')
      failing = false
    } catch (error) {
      // Once per outage: the limits keep holding per instance meanwhile.
      if (!failing) log.warn({ error: loggableError(error) }, 'the shared limit counts could not be synced; each instance counts its own clients until the store answers')
      failing = true
    }
  }
  await sync()
  const timer = setInterval(() => { sync().catch(() => {}) }, SYNC_MS).unref()
  fastify.addHook('onClose', async () => { clearInterval(timer) })
}, { name: 'limit-counts', fastify: '5.x', dependencies: ['store'] })
