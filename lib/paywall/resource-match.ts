import { PAID_SERVICES, type PaidServiceName } from '../payment/catalog.js'

// One pattern per paid route, from the catalogue: `:name` is one path segment.
const PATTERNS = (Object.keys(PAID_SERVICES) as PaidServiceName[]).map(service => ({
  service,
  pattern: new RegExp(`^${PAID_SERVICES[service].path.replace(/:[A-Za-z]+/g, '[^/?#]+')}$`)
}))

/**
 * The paid service a resource URL buys, when it is a URL of this merchant (the base URL its 402s
 * name) and the path is one of the catalogue's paid routes; undefined otherwise.
 */
export function paidServiceAt (resource: string, baseUrl: string): PaidServiceName | undefined {
  let url: URL
  let base: URL
  try {
    url = new URL(resource)
    base = new URL(baseUrl)
  } catch {
    return undefined
  }
  if (url.origin !== base.origin || url.username !== '' || url.password !== '' || url.hash !== '') return undefined
  return PATTERNS.find(({ pattern }) => pattern.test(url.pathname))?.service
}
