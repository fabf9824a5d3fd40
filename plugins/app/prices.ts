import fp from 'fastify-plugin'
import { createPriceService } from '../../lib/prices/price-service.js'

declare module 'fastify' {
  interface FastifyInstance {
    prices: ReturnType<typeof createPriceService>
  }
}

/**
 * Prices of the data network's tokens (DATA_NETWORK) from the configured aggregator (Jupiter, or the
 * local stand-in); the pool closes with the app.
 */
export default fp(async (fastify) => {
  const { PRICE_API_URL, PRICE_API_KEY, UPSTREAM_TIMEOUT_MS, PRICE_CACHE_TTL_MS, TOKEN_CACHE_TTL_MS, dataNetwork } = fastify.config
  const prices = createPriceService({
    network: dataNetwork,
    baseUrl: PRICE_API_URL,
    apiKey: PRICE_API_KEY,
    timeoutMs: UPSTREAM_TIMEOUT_MS,
    priceTtlMs: PRICE_CACHE_TTL_MS,
    tokenTtlMs: TOKEN_CACHE_TTL_MS
  })
  fastify.decorate('prices', prices)
  fastify.addHook('onClose', async () => prices.close())
}, { name: 'prices', fastify: '5.x', dependencies: ['config'] })
