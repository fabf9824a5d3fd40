import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { hookList } from '../../lib/http/route-hooks.js'
import { CORS_HEADERS } from './cross-origin.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's requests get the fixed headers from its own code (setFixedHeaders) rather than
     * from a hook: set on the hottest routes, where Fastify's hook runner is a measurable share.
     */
    setsFixedHeaders?: boolean
  }
}

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

/** What every answer carries: the security and CORS headers, its request id (x-request-id), HSTS over HTTPS. */
export function setFixedHeaders (request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(STATIC_HEADERS).header('x-request-id', request.id)
  if (request.protocol === 'https') reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY)
}

const fixedHeadersHook: onRequestHookHandler = (request, reply, done) => {
  setFixedHeaders(request, reply)
  done()
}

/**
 * Every answer carries the fixed headers: from a hook on each route, except routes that set
 * them in their own code (config.setsFixedHeaders); the error handler sets them on every error,
 * the not-found answer included.
 */
export default fp(async (fastify) => {
  fastify.addHook('onRoute', (route) => {
    if (route.config?.setsFixedHeaders === true) return
    route.onRequest = [fixedHeadersHook, ...hookList(route.onRequest)]
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
