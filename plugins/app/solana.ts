import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { NetworkMismatchError } from '../../lib/solana/network-check.js'
import { createRpcConnection, servesAs, type RpcConnection } from '../../lib/solana/rpc-connection.js'

declare module 'fastify' {
  interface FastifyInstance {
    solana: {
      /** The payment RPC (SOLANA_RPC_URL): payments, settlement, the registry, the merchant's accounts. */
      rpc: RpcConnection['rpc']
      health: RpcConnection['health']
      /** The data RPC (DATA_RPC_URL): everything the token analysis reads. The payment connection itself when both are one. */
      data: RpcConnection
    }
  }
}

const RECHECK_MS = 15_000

/**
 * Start-up refuses an RPC that serves another cluster, but not an unreachable one: the service
 * starts offline, reports the RPC down on /health/ready, and checks again in the background
 * until the node answers.
 */
async function watch (fastify: FastifyInstance, connection: RpcConnection) {
  const { role, network, health } = connection
  if (await health.check() === 'up') return
  fastify.log.warn({ role, network }, `Solana ${role} RPC unreachable at start-up; routes that need it answer 503 until it answers`)
  const retry = setInterval(() => {
    health.check().then(state => {
      if (state !== 'up') return
      clearInterval(retry)
      fastify.log.info({ role, network }, `Solana ${role} RPC reachable again`)
    }, (error: unknown) => {
      clearInterval(retry)
      if (error instanceof NetworkMismatchError) fastify.log.fatal(error.message)
    })
  }, RECHECK_MS).unref()
  fastify.addHook('onClose', async () => clearInterval(retry))
}

/**
 * The two RPC connections, by role: payments on SOLANA_RPC_URL, token data on DATA_RPC_URL. When
 * both name the same cluster, endpoint and timeout, one connection serves both.
 */
export default fp(async (fastify) => {
  const { rpcUrl, RPC_TIMEOUT_MS, network, dataNetwork, dataRpcUrl, dataRpcTimeoutMs } = fastify.config
  const payment = createRpcConnection({ role: 'payment', network, url: rpcUrl, timeoutMs: RPC_TIMEOUT_MS })
  const dataOptions = { network: dataNetwork, url: dataRpcUrl, timeoutMs: dataRpcTimeoutMs }
  const data = servesAs(payment, dataOptions) ? payment : createRpcConnection({ role: 'data', ...dataOptions })
  fastify.decorate('solana', { rpc: payment.rpc, health: payment.health, data })

  await Promise.all([payment, ...(data === payment ? [] : [data])].map(connection => watch(fastify, connection)))
}, { name: 'solana', fastify: '5.x', dependencies: ['config'] })
