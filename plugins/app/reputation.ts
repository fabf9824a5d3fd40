import fp from 'fastify-plugin'
import { createReputation } from '../../lib/reputation/reputation-report.js'

declare module 'fastify' {
  interface FastifyInstance {
    reputation: ReturnType<typeof createReputation>
  }
}

/** Trust signals from the audit log (GET /reputation), read from aggregates the store's triggers keep. */
export default fp(async (fastify) => {
  const { config, store } = fastify
  fastify.decorate('reputation', createReputation({
    queries: store.reputation,
    merchant: { name: config.AGENT_NAME, paymentAddress: config.paymentAddress },
    tokenSymbol: config.PAYMENT_TOKEN_SYMBOL,
    services: fastify.catalogue.products.map(product => product.name)
  }))
}, { name: 'reputation', fastify: '5.x', dependencies: ['config', 'store'] })
