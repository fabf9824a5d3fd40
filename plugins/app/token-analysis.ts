import fp from 'fastify-plugin'
import { createJupiterClient } from '../../lib/prices/jupiter-client.js'
import { createTokenAnalyzer } from '../../lib/token-analysis/analyze-token.js'
import { ANALYSIS_RPC_ROUNDS } from '../../lib/catalogue/analyze-token.js'
import { createMarketReader } from '../../lib/token-analysis/market.js'
import { createLaunchParts } from '../../lib/token-analysis/launch/launch-parts.js'
import { createLiquidityPart } from '../../lib/token-analysis/pools/liquidity-part.js'

declare module 'fastify' {
  interface FastifyInstance {
    tokenAnalysis: ReturnType<typeof createTokenAnalyzer>
  }
}

/**
 * Token security analysis over the data RPC (DATA_RPC_URL, on DATA_NETWORK), with market data and
 * sell quotes from the price API (PRICE_API_URL), answers reused for ANALYSIS_CACHE_TTL_MS.
 */
export default fp(async (fastify) => {
  const { data } = fastify.solana
  const { PRICE_API_URL, PRICE_API_KEY, UPSTREAM_TIMEOUT_MS, PRICE_CACHE_TTL_MS } = fastify.config
  // One attempt per upstream call (no retry wait): the token record and then the quotes take at
  // most two UPSTREAM_TIMEOUT_MS, alongside the chain reads, so an analysis stays within the
  // handler time the shutdown grace allows (lib/ops/shutdown-grace.ts).
  const client = createJupiterClient({ baseUrl: PRICE_API_URL, apiKey: PRICE_API_KEY, timeoutMs: UPSTREAM_TIMEOUT_MS, maxRetryWaitMs: 0 })
  fastify.addHook('onClose', async () => client.close())
  fastify.decorate('tokenAnalysis', createTokenAnalyzer({
    rpc: data.rpc,
    network: data.network,
    // A node that was down at start-up has not shown its genesis hash yet: nobody is sold data of
    // another cluster, so it is checked first, and a node of the wrong cluster stays unavailable.
    ensureNetwork: async () => await data.health.ensureVerified(error => fastify.log.fatal(error.message)),
    cacheTtlMs: fastify.config.ANALYSIS_CACHE_TTL_MS,
    market: createMarketReader({ client, baseUrl: PRICE_API_URL, network: data.network, ttlMs: PRICE_CACHE_TTL_MS }),
    // The two rounds of data RPC reads the shutdown grace allows an analysis (ANALYSIS_RPC_ROUNDS):
    // a simulation still running past them is given up as unavailable.
    transferSimulation: { budgetMs: ANALYSIS_RPC_ROUNDS * fastify.config.dataRpcTimeoutMs },
    parts: [...createLaunchParts({ rpc: data.rpc, store: fastify.store.launchFacts, network: data.network }), createLiquidityPart({ rpc: data.rpc, network: data.network })]
  }))
}, { name: 'token-analysis', fastify: '5.x', dependencies: ['config', 'solana', 'store'] })
