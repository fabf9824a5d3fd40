import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { SERVICE_VERSION } from '../../project.js'

/**
 * OpenAPI 3 document generated from the route schemas. Components are named after each
 * model's `$id` (not swagger's default `def-N`) so generated clients get readable types.
 */
export default fp(async (fastify) => {
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'token-merchant',
        version: SERVICE_VERSION,
        description: 'Solana token data sold per request over x402. Paid routes answer 402 with payment requirements; ' +
          'pay on-chain, then repeat the call with the x-payment-signature and x-payment-wallet headers.'
      },
      tags: [
        { name: 'discovery', description: 'Free: manifest, registry, reputation' },
        { name: 'paid', description: 'Paid per request through x402' },
        { name: 'ops', description: 'Health checks for operators' }
      ]
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`)
    }
  })
  await fastify.register(swaggerUi, { routePrefix: '/docs' })
  fastify.get('/openapi.json', { schema: { hide: true } }, async () => fastify.swagger())
}, { name: 'swagger', fastify: '5.x' })
