import fp from 'fastify-plugin'

const LOGS_INFO = new Set(['trace', 'debug', 'info'])

/**
 * One log line per request, when its answer is out: the request, the status and the time taken.
 * Registered only at info and below: a response hook makes Fastify watch every answer, a cost
 * not worth paying for a line that would not be written.
 */
export default fp(async (fastify) => {
  if (!LOGS_INFO.has(fastify.config.LOG_LEVEL)) return
  fastify.addHook('onResponse', (request, reply, done) => {
    reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
    done()
  })
}, { name: 'request-log', fastify: '5.x', dependencies: ['config'] })
