import fc from 'fast-check'
import t from 'tap'
import { build } from '../helper.js'

// Random methods, paths, queries and headers against the real app (its RPC and price API
// unreachable): never a 5xx but a documented 503, never a paid 200, every error in the one shape.
const PAID_PREFIXES = ['/api/fetch-price/', '/api/analyze-token/']
const PREFIXES = [...PAID_PREFIXES, '/', '/.well-known/agent.json', '/registry', '/reputation', '/health/ready', '/docs/', '/openapi.json', '/nope/']
const DOCUMENTED_503 = new Set(['RPC_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'SERVICE_UNAVAILABLE'])
const SEGMENT = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom('SOL', '$WIF', 'So11111111111111111111111111111111111111112', '%', '%zz', '%E0%A4%A', '..', '%2e%2e', '\u0000'),
  fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{30,90}$/)
)
const HEADER_NAMES = fc.constantFrom('x-payment-signature', 'x-payment-wallet', 'x-payment-wallet-signature', 'x-request-id', 'host', 'x-forwarded-for', 'accept', 'content-type', 'origin')

t.test('fuzzed requests never reach a 5xx, a paid 200 or another error shape', async t => {
  const app = await build(t)
  await fc.assert(fc.asyncProperty(
    fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
    fc.constantFrom(...PREFIXES),
    SEGMENT,
    fc.option(fc.string({ maxLength: 200 })),
    fc.dictionary(HEADER_NAMES, fc.string({ maxLength: 120 }), { maxKeys: 4 }),
    async (method, prefix, segment, query, headers) => {
      const url = `${prefix}${encodeURI(segment).replaceAll('%25', '%')}${query === null ? '' : `?${encodeURIComponent(query)}`}`
      const safeHeaders = Object.fromEntries(Object.entries(headers).filter(([, value]) => /^[\t\x20-\x7e]*$/.test(value)))
      const res = await app.inject({ method: method as 'GET', url, headers: safeHeaders })
      if (res.statusCode >= 500) {
        // HEAD answers carry no body: their status alone is checked.
        if (res.statusCode !== 503 || (method !== 'HEAD' && !DOCUMENTED_503.has(res.json().code))) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
      }
      if (res.statusCode === 200 && PAID_PREFIXES.some(paid => url.startsWith(paid)) && method === 'GET') throw new Error(`${method} ${url}: a paid 200`)
      if (res.statusCode >= 400 && method !== 'HEAD') {
        const body = res.json()
        if (typeof body.code !== 'string' || typeof body.requestId !== 'string' || body.statusCode !== res.statusCode) {
          throw new Error(`${method} ${url}: not the error shape: ${res.body.slice(0, 200)}`)
        }
      }
    }
  ), { numRuns: 400, seed: 402 })
  t.pass('400 random requests held every property')
})
