import rateLimit from '@fastify/rate-limit'
import fp from 'fastify-plugin'
import { AppError } from '../../lib/errors/app-error.js'
import { createWindowCounter, type WindowCount, type WindowCounter } from '../../lib/limits/window-counter.js'

// A balancer's probes come from one address every few seconds: they are never what a limit is for.
const isHealthProbe = (url: string): boolean => url === '/health' || url.startsWith('/health/')

type Answer = (error: Error | null, result: { current: number, ttl: number }) => void
const answer = (done: Answer, { count, resetMs }: WindowCount) => { done(null, { current: count, ttl: resetMs }) }

/** @fastify/rate-limit's store over our window counter, whose counts every instance sharing the store adds up. */
function counterStore (counter: WindowCounter) {
  return class CounterStore {
    incr (key: string, done: Answer) { answer(done, counter.add(key)) }
    read (key: string, done: Answer) { answer(done, counter.peek(key)) }
    child () { return this }
  }
}

/**
 * RATE_LIMIT_MAX requests per client and window (on by default, 0 turns it off), one limit for all
 * the instances sharing the store (plugins/app/limit-counts.ts); answers 429 in the common error
 * shape with Retry-After. Health probes are not counted.
 */
export default fp(async (fastify) => {
  const { RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS } = fastify.config
  if (RATE_LIMIT_MAX === 0) return
  const counter = createWindowCounter({ windowMs: RATE_LIMIT_WINDOW_MS, shared: { counts: fastify.limitCounts, scope: 'requests', limit: RATE_LIMIT_MAX } })
  await fastify.register(rateLimit, {
    max: RATE_LIMIT_MAX,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    store: counterStore(counter),
    allowList: (request) => isHealthProbe(request.url),
    errorResponseBuilder: (_request, context) => new AppError('RATE_LIMITED',
      `Rate limit of ${context.max} requests per ${RATE_LIMIT_WINDOW_MS / 1000} s exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`,
      { details: { retryAfterSeconds: Math.ceil(context.ttl / 1000) } })
  })
}, { name: 'rate-limit', fastify: '5.x', dependencies: ['config', 'limit-counts'] })
