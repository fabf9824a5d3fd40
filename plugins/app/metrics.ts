import fp from 'fastify-plugin'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { AppError } from '../../lib/errors/app-error.js'
import { createMetricsServer, metricsTokenAccepted } from '../../lib/metrics/metrics-endpoint.js'

/**
 * Prometheus metrics, observed from outside the code they measure: a response hook for requests
 * and the 402 challenges, the store's timings (it is built timed, plugins/app/store.ts), and the
 * diagnostics channels lib/ publishes on (RPC calls, registry reads, and the delivery core's
 * payment attempts and settlements from every door, the fee payer's spend). Off unless
 * METRICS_ENABLED; then served on METRICS_PORT (its own listener) or at /metrics on the main port
 * behind METRICS_TOKEN. The metrics themselves are made earlier (plugins/app/metrics-registry.ts).
 */
export default fp(async (fastify) => {
  const { config, metrics } = fastify
  if (metrics === null) return

  fastify.addHook('onResponse', async (request, reply) => {
    metrics.request({ route: request.routeOptions.url ?? 'unmatched', method: request.method, status: reply.statusCode }, reply.elapsedTime)
  })

  if (config.metricsPort !== undefined) {
    const server = createMetricsServer({ token: config.METRICS_TOKEN, render: metrics.render, contentType: metrics.contentType })
    fastify.addHook('onReady', async () => {
      server.listen(config.metricsPort, config.METRICS_HOST)
      await once(server, 'listening')
      const { port } = server.address() as AddressInfo
      fastify.log.info({ url: `http://${config.METRICS_HOST}:${port}/metrics` }, 'metrics listening')
    })
    fastify.addHook('onClose', async () => {
      if (server.listening) await new Promise(resolve => server.close(resolve))
      server.closeAllConnections()
    })
  } else {
    const token = config.METRICS_TOKEN
    fastify.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (!metricsTokenAccepted(token, request.headers.authorization)) {
        throw new AppError('UNAUTHORIZED', 'Send the metrics token as a bearer token', { headers: { 'www-authenticate': 'Bearer' } })
      }
      return reply.header('cache-control', 'no-store').type(metrics.contentType).send(await metrics.render())
    })
  }
}, { name: 'metrics', fastify: '5.x', dependencies: ['config', 'metrics-registry', 'payment'] })
