import fp from 'fastify-plugin'
import { rpcUnavailable } from '../../lib/solana/rpc-errors.js'
import { createTokenAnalyzer } from '../../lib/token-analysis/analyze-token.js'

declare module 'fastify' {
  interface FastifyInstance {
    tokenAnalyzer: ReturnType<typeof createTokenAnalyzer>
  }
}

/**
 * Token security analysis over the data RPC (DATA_RPC_URL, on DATA_NETWORK), answers reused for
 * ANALYSIS_CACHE_TTL_MS.
 */
export default fp(async (fastify) => {
  const { data } = fastify.solana
  fastify.decorate('tokenAnalyzer', createTokenAnalyzer({
    rpc: data.rpc,
    network: data.network,
    // A node that was down at start-up has not shown its genesis hash yet: nobody is sold data of
    // another cluster, so it is checked first, and a node of the wrong cluster stays unavailable.
    ensureNetwork: async () => {
      if (data.health.genesisHash !== undefined) return
      const state = await data.health.check().catch((error: Error) => {
        fastify.log.fatal(error.message)
        return 'down' as const
      })
      if (state !== 'up') throw rpcUnavailable(new Error(`Solana ${data.role} RPC not verified`))
    },
    cacheTtlMs: fastify.config.ANALYSIS_CACHE_TTL_MS
  }))
}, { name: 'token-analysis', dependencies: ['config', 'solana'] })
