import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { createMcpDoor, type McpExchange } from '../../lib/doors/mcp/mcp-door.js'
import { chargeToolMethod } from '../../lib/doors/mcp/mpp-charge.js'
import { unreadableBodyAnswer } from '../../lib/http/json-rpc.js'
import { parseOriginList } from '../../lib/http/origin-policy.js'
import { publicBaseUrl } from '../../lib/http/public-url.js'
import { MCP_PATH } from '../../lib/manifest/merchant-manifest.js'
import { SERVICE_VERSION } from '../../project.js'
import { MODELS } from '../../schemas/index.js'

/** Preflight of a browser MCP client: the methods and headers of the streamable HTTP transport. */
const MCP_PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
  'access-control-allow-headers': 'content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, x-request-id',
  'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, x-request-id, retry-after',
  'access-control-max-age': '600'
} as const

/**
 * The MCP door (lib/doors/mcp/mcp-door.ts) on the same port: POST /mcp, GET and DELETE answered
 * 405, and the preflight. The rate limit applies as on every route (its onRequest hook is global);
 * the paid-delivery core and the failure limit are the HTTP door's.
 */
export default fp(async (fastify) => {
  const { config, store } = fastify
  const door = createMcpDoor({
    info: { name: config.AGENT_NAME, title: config.AGENT_NAME, version: SERVICE_VERSION },
    description: config.AGENT_DESCRIPTION,
    tokenSymbol: config.PAYMENT_TOKEN_SYMBOL,
    models: MODELS,
    catalogue: fastify.catalogue,
    services: fastify.services,
    directCalls: config.MCP_DIRECT_CALLS,
    rateLimit: { max: config.RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS },
    allowedOrigins: parseOriginList(config.MCP_ALLOWED_ORIGINS) ?? [],
    publicBaseUrl: config.PUBLIC_BASE_URL,
    paid: {
      core: fastify.delivery,
      payments: fastify.x402,
      countUnpaid: service => store.audit.countUnpaid(service, 'PAYMENT_REQUIRED'),
      checkFailureLimit: client => fastify.delivery.checkFailureLimit(client)
    },
    charge: fastify.mpp === undefined ? undefined : { challenges: fastify.mpp.challenges.challenges, method: chargeToolMethod(fastify.mpp.payments) },
    cancelCall: async callerRef => await store.claims.cancelCall(callerRef)
  })

  // The same counter and key as the global rate limit (@fastify/rate-limit's).
  const countCall = fastify.hasDecorator('createRateLimit') ? fastify.createRateLimit() : undefined

  function exchangeOf (request: FastifyRequest, reply: FastifyReply): McpExchange {
    return {
      body: request.body,
      headers: request.headers,
      ip: request.ip,
      id: request.id,
      log: request.log,
      raw: { request: request.raw, response: reply.raw },
      baseUrl: () => publicBaseUrl(request, config.PUBLIC_BASE_URL),
      sendJson: async (statusCode, body) => { await reply.code(statusCode).send(body) },
      setHeader: (name, value) => { reply.header(name, value) },
      // The headers set so far (security, CORS, request id, rate limit) go on the raw answer.
      takeAnswer () {
        reply.hijack()
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) reply.raw.setHeader(name, value)
        }
      },
      countRequest: countCall === undefined
        ? undefined
        : async () => {
          const counted = await countCall(request)
          return counted.isAllowed || !counted.isExceeded
        }
    }
  }

  /** A body Fastify could not read as JSON (or without a Content-Type): JSON-RPC's errors; every other error keeps the common error shape. */
  function parseErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
    const answer = unreadableBodyAnswer(error.code, { mediaType: true })
    if (answer === undefined) throw error
    return reply.code(answer.statusCode).send(answer.body)
  }

  const route = { schema: { hide: true }, onRequest: async (request: FastifyRequest) => door.checkOrigin(request.headers.origin) }
  fastify.post(MCP_PATH, { ...route, errorHandler: parseErrors }, async (request, reply) => await door.post(exchangeOf(request, reply)))
  fastify.get(MCP_PATH, route, async request => door.refuseMethod(request.method))
  fastify.delete(MCP_PATH, route, async request => door.refuseMethod(request.method))
  fastify.options(MCP_PATH, route, async (_request, reply) => reply.code(204).headers(MCP_PREFLIGHT_HEADERS).send())
}, { name: 'mcp', fastify: '5.x', dependencies: ['config', 'store', 'x402', 'payment', 'services'] })
