import helmet from '@fastify/helmet'
import fp from 'fastify-plugin'

/**
 * Security headers. The API answers JSON only, so no content security policy is needed
 * (and the /docs page runs Swagger UI's inline scripts); resources are meant to be read cross-origin.
 */
export default fp(async (fastify) => {
  await fastify.register(helmet, {
    contentSecurityPolicy: false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginEmbedderPolicy: false
  })
}, { name: 'helmet' })
