import type { Catalogue } from '../catalogue/catalogue.js'
import type { PaidServiceName } from '../payment/catalog.js'

const patterns = new WeakMap<Catalogue, Array<{ service: PaidServiceName, pattern: RegExp }>>()

/** One pattern per paid route, from the catalogue: `:name` is one path segment. */
function patternsOf (catalogue: Catalogue) {
  let found = patterns.get(catalogue)
  if (found === undefined) {
    found = catalogue.products.map(product => ({ service: product.name, pattern: new RegExp(`^${product.path.replace(/:[A-Za-z]+/g, '[^/?#]+')}$`) }))
    patterns.set(catalogue, found)
  }
  return found
}

/**
 * The paid service a resource URL buys, when it is a URL of this merchant (the base URL its 402s
 * name) and the path is one of the catalogue's paid routes; undefined otherwise.
 */
export function paidServiceAt (resource: string, baseUrl: string, catalogue: Catalogue): PaidServiceName | undefined {
  let url: URL
  let base: URL
  try {
    url = new URL(resource)
    base = new URL(baseUrl)
  } catch {
    return undefined
  }
  if (url.origin !== base.origin || url.username !== '' || url.password !== '' || url.hash !== '') return undefined
  return patternsOf(catalogue).find(({ pattern }) => pattern.test(url.pathname))?.service
}
