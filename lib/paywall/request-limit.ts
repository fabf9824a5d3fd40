import { AppError } from '../errors/app-error.js'

const SWEEP_AT = 10_000

/**
 * A fixed window of `max` requests per client: what keeps POST /api/x402/prepare (two RPC reads a
 * call) and POST /api/refunds (a getTransaction each) from being a free way to load the merchant's
 * node, whether or not RATE_LIMIT_MAX is on.
 */
export function createRequestLimit (options: { max: number, windowMs: number, now?: () => number, what?: string }) {
  const now = options.now ?? Date.now
  const windows = new Map<string, { start: number, count: number }>()
  return {
    /** Counts the request; throws 429 RATE_LIMITED with Retry-After once the client's window is used up. */
    take (client: string): void {
      const at = now()
      if (windows.size >= SWEEP_AT) for (const [key, window] of windows) if (at - window.start >= options.windowMs) windows.delete(key)
      const window = windows.get(client)
      if (window === undefined || at - window.start >= options.windowMs) {
        windows.set(client, { start: at, count: 1 })
        return
      }
      if (window.count < options.max) {
        window.count++
        return
      }
      const seconds = Math.max(1, Math.ceil((window.start + options.windowMs - at) / 1000))
      throw new AppError('RATE_LIMITED', `${options.max} ${options.what ?? 'payment preparations'} per ${options.windowMs / 1000} s; retry in ${seconds} s`,
        { headers: { 'retry-after': String(seconds) }, details: { retryAfterSeconds: seconds } })
    }
  }
}
