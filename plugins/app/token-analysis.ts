import fp from 'fastify-plugin'
import { createTokenAnalyzer } from '../../lib/token-analysis/analyze-token.js'

declare module 'fastify' {
  interface FastifyInstance {
    tokenAnalyzer: ReturnType<typeof createTokenAnalyzer>
  }
}

/** Token security analysis over the service's Solana RPC client, answers reused for ANALYSIS_CACHE_TTL_MS. */
export default fp(async (fastify) => {
  fastify.decorate('tokenAnalyzer', createTokenAnalyzer({ rpc: fastify.solana.rpc, cacheTtlMs: fastify.config.ANALYSIS_CACHE_TTL_MS }))
}, { name: 'token-analysis', dependencies: ['config', 'solana'] })
