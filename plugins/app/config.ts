import fp from 'fastify-plugin'
import type { Config } from '../../config.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

/** Makes the validated configuration available as `fastify.config`. */
export default fp<{ config: Config }>(async (fastify, opts) => {
  fastify.decorate('config', opts.config)
}, { name: 'config', fastify: '5.x' })
