import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { A2A_VERSION_HEADER } from '@a2a-js/sdk'
import { createA2aDoor } from '../../lib/doors/a2a/a2a-door.js'
import { unreadableBodyAnswer } from '../../lib/http/json-rpc.js'
import { A2A_PATH, AGENT_CARD_PATH } from '../../schemas/a2a.js'
import { SERVICE_VERSION } from '../../project.js'

/**
 * The A2A door (lib/doors/a2a/a2a-door.ts): the agent card at /.well-known/agent-card.json and
 * JSON-RPC at POST /a2a. The rate limit, body limit, request ids and fixed headers are those of
 * every route; the paid-delivery core and the failure limit are the HTTP door's.
 */
export default fp(async (fastify) => {
  const { config, store } = fastify
  const door = createA2aDoor({
    agent: { name: config.AGENT_NAME, description: config.AGENT_DESCRIPTION, version: SERVICE_VERSION },
    tokenSymbol: config.PAYMENT_TOKEN_SYMBOL,
    mpp: config.MPP_CHARGE,
    catalogue: fastify.catalogue,
    services: fastify.services,
    core: fastify.delivery,
    payments: fastify.x402,
    network: fastify.x402.network.v2,
    checkFailureLimit: client => fastify.delivery.checkFailureLimit(client),
    countUnpaid: service => store.audit.countUnpaid(service, 'PAYMENT_REQUIRED'),
    tasks: store.a2aTasks,
    retentionMs: config.DELIVERY_RETENTION_SECONDS * 1000,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    log: fastify.log.child({ component: 'a2a' })
  })

  /** A body Fastify could not read as JSON: JSON-RPC's parse error; every other error keeps the common error shape. */
  function parseErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
    const answer = unreadableBodyAnswer(error.code, { mediaType: false })
    if (answer === undefined) throw error
    return reply.code(answer.statusCode).send(answer.body)
  }

  const hidden = { hide: true }
  fastify.post(A2A_PATH, { schema: hidden, errorHandler: parseErrors }, async (request, reply) => {
    const { headers, body } = await door.post({
      body: request.body,
      headers: request.headers,
      protocol: request.protocol,
      host: request.host,
      url: request.url,
      ip: request.ip,
      id: request.id,
      log: request.log,
      response: reply.raw
    })
    return await reply.headers(headers).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body)
  })
  fastify.get(AGENT_CARD_PATH, { schema: hidden }, async (request, reply) => {
    return await reply.header('vary', A2A_VERSION_HEADER).header('cache-control', 'public, max-age=300').type('application/json; charset=utf-8')
      .send(door.cardText(request, request.headers))
  })
}, { name: 'a2a', fastify: '5.x', dependencies: ['config', 'store', 'x402', 'payment', 'services'] })
