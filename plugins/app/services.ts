import fp from 'fastify-plugin'
import { createManifestBuilder } from '../../lib/manifest/merchant-manifest.js'
import type { ToolServices } from '../../lib/tools/merchant-tools.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** What the products and the free documents are made of, assembled once: every door calls these. */
    services: ToolServices
  }
}

/**
 * The merchant's services in one object, handed to every door (the HTTP routes, MCP's tools, A2A's
 * skills), so a product sold on three doors runs the very same services and a new service joins
 * here once.
 */
export default fp(async (fastify) => {
  fastify.decorate('services', {
    prices: fastify.prices,
    tokenAnalysis: fastify.tokenAnalysis,
    registry: fastify.registry,
    reputation: fastify.reputation,
    manifest: createManifestBuilder(fastify.config, fastify.catalogue)
  })
}, { name: 'services', fastify: '5.x', dependencies: ['config', 'catalogue', 'prices', 'token-analysis', 'registry', 'reputation'] })
