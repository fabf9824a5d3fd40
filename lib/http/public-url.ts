import { AppError } from '../errors/app-error.js'
import { boundedMemo, boundedMemo2 } from './bounded-memo.js'

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

/** What a request says of where it was sent: enough for its public URL. */
export interface RequestTarget {
  protocol: string
  host: string
  url: string
}

/**
 * `make(baseUrl)` per public base URL, for the last `size` Hosts (per protocol). A hit checks no
 * Host and builds no URL: a Host is kept only once `publicBaseUrl` found it valid.
 */
export function perPublicBase<V> (configured: string | undefined, size: number, make: (baseUrl: string) => V): (request: RequestTarget) => V {
  if (configured !== undefined) {
    const only = boundedMemo(1, () => make(publicBaseUrl({ protocol: 'http', host: '' }, configured)))
    return () => only('')
  }
  const http = boundedMemo(size, host => make(publicBaseUrl({ protocol: 'http', host }, undefined)))
  const https = boundedMemo(size, host => make(publicBaseUrl({ protocol: 'https', host }, undefined)))
  return request => (request.protocol === 'https' ? https : http)(request.host)
}

/**
 * `make(resourceUrl)` per public URL of a resource (base URL, path and query), for the last `size`
 * of them (per protocol), looked up by Host and request target as they came, with the same
 * guarantee as perPublicBase.
 */
export function perResourceUrl<V> (configured: string | undefined, size: number, make: (resourceUrl: string) => V): (request: RequestTarget) => V {
  const memo = (protocol: string) => boundedMemo2(size, (host, url) => make(`${publicBaseUrl({ protocol, host }, configured)}${requestPath(url)}`))
  const http = memo('http')
  if (configured !== undefined) return request => http('', request.url)
  const https = memo('https')
  return request => (request.protocol === 'https' ? https : http)(request.host, request.url)
}
