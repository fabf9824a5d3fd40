import { AppError } from '../errors/app-error.js'
import type { SharedCounts } from '../limits/shared-counts.js'
import { createWindowCounter } from '../limits/window-counter.js'

/**
 * A fixed window of `max` requests per client: what keeps POST /api/x402/prepare (two RPC reads a
 * call) and POST /api/refunds (a getTransaction each) from being a free way to load the merchant's
 * node, whether or not RATE_LIMIT_MAX is on. With `shared`, one limit for every instance sharing
 * the store (its counts named by `scope`).
 */
export function createRequestLimit (options: { max: number, windowMs: number, now?: () => number, what?: string, shared?: SharedCounts, scope?: string }) {
  const counter = createWindowCounter({ windowMs: options.windowMs, now: options.now, shared: { counts: options.shared, scope: options.scope ?? 'request-limit', limit: options.max } })
  return {
    /** Counts the request; throws 429 RATE_LIMITED with Retry-After once the client's window is used up. */
    take (client: string): void {
      const { count, retryAfterSeconds: seconds } = counter.peek(client)
      if (count < options.max) {
        counter.add(client)
        return
      }
      throw new AppError('RATE_LIMITED', `${options.max} ${options.what ?? 'payment preparations'} per ${options.windowMs / 1000} s; retry in ${seconds} s`,
        { headers: { 'retry-after': String(seconds) }, details: { retryAfterSeconds: seconds } })
    }
  }
}
