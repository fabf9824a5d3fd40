import fp from 'fastify-plugin'
import { closeStalledWrites } from '../../lib/http/stalled-writes.js'

// What Fastify's connectionTimeout was set to: a minute with nothing written is a client gone.
const STALL_MS = 60_000
const CHECK_EVERY_MS = 5000

/** Connections whose client stopped reading are closed (lib/http/stalled-writes.ts). */
export default fp(async (fastify) => {
  const stop = closeStalledWrites(fastify.server, { stallMs: STALL_MS, checkEveryMs: CHECK_EVERY_MS })
  fastify.addHook('onClose', (_instance, done) => {
    stop()
    done()
  })
}, { name: 'stalled-writes', fastify: '5.x' })
