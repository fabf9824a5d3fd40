import type { onResponseAsyncHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { hookList } from '../../lib/http/route-hooks.js'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { AppError } from '../../lib/errors/app-error.js'
import { createMetricsServer, metricsTokenAccepted } from '../../lib/metrics/metrics-endpoint.js'

/**
 * Prometheus metrics, observed from outside the code they measure: a response hook for requests
 * and payments, the store's timings (it is built timed, plugins/app/store.ts), and the
 * diagnostics channels lib/ publishes on (RPC calls, registry reads, settlements). Off unless
 * METRICS_ENABLED; then served on METRICS_PORT (its own listener) or at /metrics on the main port
 * behind METRICS_TOKEN. The metrics themselves are made earlier (plugins/app/metrics-registry.ts).
 */
export default fp(async (fastify) => {
  const { config, metrics } = fastify
  if (metrics === null) return

  fastify.addHook('onResponse', async (request, reply) => {
    metrics.request({ route: request.routeOptions.url ?? 'unmatched', method: request.method, status: reply.statusCode }, reply.elapsedTime)
  })

  // Paid routes: the outcome of each payment, carried on the request (the delivery's, or the
  // code the request was answered with before any claim).
  const countPayment = (service: string): onResponseAsyncHookHandler => async (request) => {
    const payment = request.payment
    if (payment !== undefined) {
      metrics.attempt(service, payment.payment.flow, payment.outcome)
      if (payment.payment.flow === 'proof' && payment.outcome === 'DELIVERED') metrics.settlement(service, 'proof', 'settled')
      return
    }
    const code = request.outcome
    if (code === undefined) return
    if (code === 'PAYMENT_REQUIRED') metrics.challenge(service)
    else metrics.attempt(service, 'proof', code)
  }
  fastify.addHook('onRoute', (route) => {
    const service = route.config?.paidService
    if (service === undefined) return
    route.onResponse = [...hookList(route.onResponse), countPayment(service)]
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
