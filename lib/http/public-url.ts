import { AppError } from '../errors/app-error.js'

// A DNS name or an IPv4 address, or a bracketed IPv6 address, then an optional port: what a Host
// header may hold. Anything else would be echoed into the URLs the service prints.
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i
const MAX_HOST_LENGTH = 260

/**
 * The absolute base URL clients reach us at: PUBLIC_BASE_URL when set (behind a proxy or a load
 * balancer), otherwise what the request says, provided its Host is a valid host[:port]
 * (otherwise 400: nothing a client sends is echoed into a URL unchecked).
 */
export function publicBaseUrl (request: { protocol: string, host: string }, configured: string | undefined): string {
  if (configured !== undefined) return configured.replace(/\/+$/, '')
  if (request.host.length > MAX_HOST_LENGTH || !HOST.test(request.host)) {
    throw new AppError('BAD_REQUEST', 'The Host header is not a valid host[:port]; set PUBLIC_BASE_URL behind a proxy')
  }
  return `${request.protocol === 'https' ? 'https' : 'http'}://${request.host}`
}

/** The path and query of a request target, also when it came in absolute form (`GET http://host/path`). */
export function requestPath (url: string): string {
  if (url.startsWith('/')) return url
  try {
    const parsed = new URL(url)
    return `${parsed.pathname}${parsed.search}`
  } catch {
    return '/'
  }
}
