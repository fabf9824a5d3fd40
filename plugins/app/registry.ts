import fp from 'fastify-plugin'
import { createRegistryRepository } from './registry/registry-repository.js'
import { createRegistryScanner } from './registry/registry-scanner.js'
import { createRegistryService } from './registry/registry-service.js'

declare module 'fastify' {
  interface FastifyInstance {
    registry: ReturnType<typeof createRegistryService>
  }
}

// getTransaction calls in flight at once, and listed signatures stored per batch (see the README
// section on the registry for the measurements behind both).
const FETCH_CONCURRENCY = 8
const BATCH_SIZE = 100

/** The on-chain agent registry, read from REGISTRY_ADDRESS into the store and served from there. */
export default fp(async (fastify) => {
  const { network, REGISTRY_ADDRESS, REGISTRY_REFRESH_SECONDS } = fastify.config
  const key = { network, registryAddress: REGISTRY_ADDRESS }
  const repository = createRegistryRepository(fastify.store.db)
  const scanner = createRegistryScanner({ rpc: fastify.solana.rpc, repository, key, concurrency: FETCH_CONCURRENCY, batchSize: BATCH_SIZE })
  const registry = createRegistryService({
    repository,
    scanner,
    key,
    refreshSeconds: REGISTRY_REFRESH_SECONDS,
    log: fastify.log.child({ component: 'registry' })
  })
  fastify.decorate('registry', registry)
  fastify.addHook('onClose', async () => registry.close())
}, { name: 'registry', dependencies: ['config', 'solana-rpc', 'store'] })
