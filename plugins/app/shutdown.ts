import fp from 'fastify-plugin'
import { createConnectionDrain } from '../../lib/http/connection-drain.js'
import { trackClaims } from '../../lib/ops/claim-ledger.js'

declare module 'fastify' {
  interface FastifyInstance {
    shutdown: ReturnType<typeof createShutdown>
  }
}

function createShutdown (drain: ReturnType<typeof createConnectionDrain>, claims: ReturnType<typeof trackClaims>) {
  return {
    /** True from the first moment of a shutdown: /health/ready answers 503 from then on. */
    get draining () { return drain.draining },
    drain,
    claims
  }
}

/**
 * What a graceful stop needs from the app: the connection drain of its HTTP server and the
 * payment claims this process holds. server.ts runs the sequence (see lib/ops/graceful-stop.ts).
 */
export default fp(async (fastify) => {
  fastify.decorate('shutdown', createShutdown(createConnectionDrain(fastify.server), trackClaims(fastify.store.claims)))
}, { name: 'shutdown', fastify: '5.x', dependencies: ['store'] })
