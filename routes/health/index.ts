import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HealthStatus } from '../../schemas/health.js'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'

const RPC_STATE_MAX_AGE_MS = 5000

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/live', {
    schema: {
      operationId: 'getLiveness',
      tags: ['ops'],
      summary: 'The process is up',
      response: { 200: documented(HealthStatus, 'the process answers'), ...errorResponses('getLiveness'), default: defaultResponse('getLiveness') }
    }
  }, async () => ({ status: 'ok' as const }))

  // Ready means not shutting down and the database answers (503 otherwise). A down RPC is reported as "degraded":
  // free routes still work, paid routes that need it answer 503 RPC_UNAVAILABLE until it is back.
  // `rpc` is the payment RPC, `data_rpc` the one token data is read from (the same when shared).
  fastify.get('/ready', {
    schema: {
      operationId: 'getReadiness',
      tags: ['ops'],
      summary: 'Dependencies: database, payment RPC and data RPC; the x402 fee payer\'s balance (informative)',
      response: {
        200: documented(HealthStatus, 'ready: `ok`, or `degraded` when an RPC is down (paid routes that need it answer 503 meanwhile)'),
        503: documented(HealthStatus, 'not ready: the process is shutting down (`checks.shutdown`), or the database does not answer'),
        ...errorResponses('getReadiness'),
        default: defaultResponse('getReadiness')
      }
    }
  }, async (_request, reply) => {
    // From the first moment of a shutdown, so a load balancer stops sending before connections close.
    if (fastify.shutdown.draining) return reply.code(503).send({ status: 'down', checks: { shutdown: 'draining' } })
    const { health, data } = fastify.solana
    const stateOf = (check: typeof health) => check.current(RPC_STATE_MAX_AGE_MS).catch(() => 'down' as const)
    const [healthy, rpc, ownDataRpc] = await Promise.all([fastify.store.isHealthy(), stateOf(health), data.health === health ? undefined : stateOf(data.health)])
    const database = healthy ? 'up' : 'down'
    const dataRpc = ownDataRpc ?? rpc
    const status = database === 'down' ? 'down' : rpc === 'up' && dataRpc === 'up' ? 'ok' : 'degraded'
    // The x402 fee payer's SOL (ok, low or unchecked) is shown but decides nothing: the seed flow needs no fee payer.
    const feePayer = fastify.x402.feePayer.state()
    return reply.code(status === 'down' ? 503 : 200).send({ status, checks: { database, rpc, data_rpc: dataRpc, fee_payer: feePayer } })
  })
}

export default routes
