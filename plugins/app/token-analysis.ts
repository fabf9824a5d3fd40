import fp from 'fastify-plugin'
import { createTokenAnalyzer } from '../../lib/token-analysis/analyze-token.js'

declare module 'fastify' {
  interface FastifyInstance {
    tokenAnalysis: ReturnType<typeof createTokenAnalyzer>
  }
}

/**
 * Token security analysis over the data RPC (DATA_RPC_URL, on DATA_NETWORK), answers reused for
 * ANALYSIS_CACHE_TTL_MS.
 */
export default fp(async (fastify) => {
  const { data } = fastify.solana
  fastify.decorate('tokenAnalysis', createTokenAnalyzer({
    rpc: data.rpc,
    network: data.network,
    // A node that was down at start-up has not shown its genesis hash yet: nobody is sold data of
    // another cluster, so it is checked first, and a node of the wrong cluster stays unavailable.
    ensureNetwork: async () => await data.health.ensureVerified(error => fastify.log.fatal(error.message)),
    cacheTtlMs: fastify.config.ANALYSIS_CACHE_TTL_MS
  }))
}, { name: 'token-analysis', fastify: '5.x', dependencies: ['config', 'solana'] })
