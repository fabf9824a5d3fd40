import fp from 'fastify-plugin'
import { createRpcBatchClient } from '../../lib/solana/rpc-batch.js'
import { createRegistryScanner } from '../../lib/registry/registry-scanner.js'
import { createRegistryService } from '../../lib/registry/registry-service.js'
import type { Clock } from '../../db/clocked-store.js'

declare module 'fastify' {
  interface FastifyInstance {
    registry: ReturnType<typeof createRegistryService>
  }
}

// The candidates travel as REGISTRY_BATCH_SIZE getTransaction calls per JSON-RPC batch request
// (default 100: on the local chain a cold read of 2,500 registrations takes 28 HTTP requests and
// 1-2 s instead of 2,503 and 4-20 s). Providers cap batch sizes (some at 20) and bill each call in
// a batch, so batches save round trips and per-request overhead, not credits.
// At most this many batch requests are in flight: public endpoints throttle per IP, so more would
// only meet 429s sooner; a read cut short keeps what it stored and resumes on the next refresh.
const REQUESTS_IN_FLIGHT = 4

/**
 * The on-chain agent registry, read from REGISTRY_ADDRESS into the store and served from there;
 * `now`: the clock its listing's age is read on (a test turns it instead of waiting).
 */
export default fp(async (fastify, opts: { now?: Clock }) => {
  const { network, rpcUrl, RPC_TIMEOUT_MS, REGISTRY_ADDRESS, REGISTRY_REFRESH_SECONDS, REGISTRY_BATCH_SIZE, REGISTRY_MAX_PAGES } = fastify.config
  const key = { network, registryAddress: REGISTRY_ADDRESS }
  const repository = fastify.store.registry
  const scanner = createRegistryScanner({
    rpc: fastify.solana.rpc,
    transactions: createRpcBatchClient({ url: rpcUrl, timeoutMs: RPC_TIMEOUT_MS }),
    repository,
    key,
    callsPerRequest: REGISTRY_BATCH_SIZE,
    requestsInFlight: REQUESTS_IN_FLIGHT,
    maxPages: REGISTRY_MAX_PAGES
  })
  const registry = createRegistryService({
    repository,
    scanner,
    key,
    refreshSeconds: REGISTRY_REFRESH_SECONDS,
    // One chain read at a time across every instance on the store; the others then find it fresh.
    exclusive: async (task) => await fastify.store.exclusive(`registry-read:${key.network}:${key.registryAddress}`, task),
    log: fastify.log.child({ component: 'registry' }),
    ...(opts.now === undefined ? {} : { now: opts.now })
  })
  fastify.decorate('registry', registry)
  fastify.addHook('onClose', async () => registry.close())
}, { name: 'registry', fastify: '5.x', dependencies: ['config', 'solana', 'store'] })
