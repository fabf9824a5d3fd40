import fp from 'fastify-plugin'
import { createServiceMetrics, type ServiceMetrics } from '../../lib/metrics/service-metrics.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Prometheus metrics; null when METRICS_ENABLED is off. */
    metrics: ServiceMetrics | null
  }
}

/**
 * The metrics themselves, made before anything they measure: the store is built reporting its
 * timings into them (plugins/app/store.ts), and plugins/app/metrics.ts, registered after the
 * payment gate, counts requests and payments and serves them. Registered early, so closed last
 * (onClose hooks run in reverse order), after everything that reports into them.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  if (!config.METRICS_ENABLED) {
    fastify.decorate('metrics', null)
    return
  }
  const metrics = createServiceMetrics(config.workerInstance === undefined ? {} : { defaultLabels: { worker: config.workerInstance } })
  fastify.decorate('metrics', metrics)
  fastify.addHook('onClose', async () => metrics.close())
}, { name: 'metrics-registry', fastify: '5.x', dependencies: ['config'] })
