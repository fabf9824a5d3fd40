import fp from 'fastify-plugin'
import { createNetworkCheck, NetworkMismatchError } from '../../lib/solana/network-check.js'
import { createRpcClient } from '../../lib/solana/rpc-client.js'

declare module 'fastify' {
  interface FastifyInstance {
    solana: {
      rpc: ReturnType<typeof createRpcClient>
      health: ReturnType<typeof createNetworkCheck>
    }
  }
}

const RECHECK_MS = 15_000

/**
 * One RPC client for the configured URL. Start-up refuses an RPC that serves another cluster,
 * but not an unreachable one: the service starts offline, reports the RPC down on
 * /health/ready, and checks again in the background until the node answers.
 */
export default fp(async (fastify) => {
  const { rpcUrl, RPC_TIMEOUT_MS, network } = fastify.config
  const rpc = createRpcClient(rpcUrl, RPC_TIMEOUT_MS)
  const health = createNetworkCheck(rpc, network)
  fastify.decorate('solana', { rpc, health })

  if (await health.check() === 'up') return
  fastify.log.warn({ network }, 'Solana RPC unreachable at start-up; paid routes answer 503 until it answers')
  const retry = setInterval(() => {
    health.check().then(state => {
      if (state !== 'up') return
      clearInterval(retry)
      fastify.log.info({ network }, 'Solana RPC reachable again')
    }, (error: unknown) => {
      clearInterval(retry)
      if (error instanceof NetworkMismatchError) fastify.log.fatal(error.message)
    })
  }, RECHECK_MS).unref()
  fastify.addHook('onClose', async () => clearInterval(retry))
}, { name: 'solana', dependencies: ['config'] })
