import fp from 'fastify-plugin'
import { CORS_HEADERS } from './cross-origin.js'

/**
 * Security headers of a JSON API that browsers may call cross-origin (the OWASP REST set): no
 * MIME sniffing, no framing. The headers helmet adds for HTML documents (opener and embedder
 * policies, referrer policy, DNS prefetch, IE and Flash switches) do nothing for JSON, yet every
 * answer carried them: half the header bytes of a 402 challenge. The /docs page, the one HTML
 * document, gets them (plugins/external/swagger.ts).
 */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY'
} as const

// RFC 6797 section 7.2: sent only over HTTPS (as a TLS-terminating proxy reports it), never over plain HTTP.
const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains'

/** Every answer's fixed headers: security and CORS. */
export const STATIC_HEADERS: Record<string, string> = { ...SECURITY_HEADERS, ...CORS_HEADERS }
const IDLE_SWEEP_MS = 100

/** Every answer carries the security and CORS headers and its request id (x-request-id); HSTS over HTTPS. */
export default fp(async (fastify) => {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.headers(STATIC_HEADERS).header('x-request-id', request.id)
    if (request.protocol === 'https') reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY)
    done()
  })

  // On shutdown, keep-alive connections of requests still in flight become idle only after
  // their answer; closing idle connections until the server is closed lets those clients go.
  let sweep: NodeJS.Timeout | undefined
  fastify.addHook('preClose', (done) => {
    sweep = setInterval(() => fastify.server.closeIdleConnections(), IDLE_SWEEP_MS)
    done()
  })
  fastify.addHook('onClose', (_instance, done) => {
    clearInterval(sweep)
    done()
  })
}, { name: 'response-headers', fastify: '5.x' })
