import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { A2A_VERSION_HEADER, AgentCard, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk'
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3'
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server'
import { defaultServerCallContextBuilder, JsonRpcTransportHandler, UnauthenticatedUser, validateVersion } from '@a2a-js/sdk/server'
import { asA2aError } from '../../lib/doors/a2a/a2a-errors.js'
import { createAgentCard, legacyAgentCard } from '../../lib/doors/a2a/agent-card.js'
import { A2A_PATH, AGENT_CARD_PATH } from '../../schemas/a2a.js'
import { CALL_STATE, createSkillSeller, type CallState } from '../../lib/doors/a2a/paid-skill.js'
import { MerchantRequestHandler } from '../../lib/doors/a2a/request-handler.js'
import { createMerchantTaskStore } from '../../lib/doors/a2a/task-store.js'
import { requestedExtensions, TASK_META } from '../../lib/doors/a2a/x402-extension.js'
import { loggableError } from '../../lib/errors/loggable-error.js'
import { perPublicBase } from '../../lib/http/public-url.js'
import { createManifestBuilder } from '../../lib/manifest/merchant-manifest.js'
import { jsonRpcErrorResponse, RPC_PARSE_ERROR } from '../../lib/http/json-rpc.js'
import { createMerchantTools } from '../../lib/tools/merchant-tools.js'
import { toolErrorBodies } from '../../lib/tools/tool-errors.js'
import { SERVICE_VERSION } from '../../project.js'

/** Base URLs (Host headers, without PUBLIC_BASE_URL) whose card and handlers are kept. */
const BASES = 32
const INTERNAL_ERROR = -32603
const UNREADABLE_JSON = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY'])

type RpcAnswer = { jsonrpc: string, id: string | number | null, result?: unknown, error?: unknown }

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(',') : value
}

type TaskJson = { status?: { state?: string }, kind?: string, metadata?: Record<string, unknown> }

/**
 * The finished task with its artifact that the answer carries (v1.0 JSON: SendMessage's `task` or
 * GetTask's task; v0.3: a `kind: "task"`), if any: the bought document reached the client if it went out.
 */
function completedTaskOf (answer: RpcAnswer): TaskJson | undefined {
  const result = answer.result as (TaskJson & { task?: TaskJson }) | undefined
  const task = result?.task ?? result
  return task?.status?.state === 'TASK_STATE_COMPLETED' || (task?.kind === 'task' && task.status?.state === 'completed') ? task : undefined
}

/**
 * The merchant as an A2A agent (protocol v1.0, and v0.3 through the SDK's compatibility layer):
 * the agent card at /.well-known/agent-card.json and JSON-RPC at POST /a2a, the SDK's
 * framework-free transport handlers mounted on Fastify. The skills are the paid products, sold
 * through the a2a-x402 extension on the one paid-delivery core (lib/doors/a2a/). The rate limit, body
 * limit, request ids and fixed headers are those of every route.
 */
export default fp(async (fastify) => {
  const { config, store } = fastify
  const log = fastify.log.child({ component: 'a2a' })
  const tools = createMerchantTools({
    prices: fastify.prices,
    tokenAnalysis: fastify.tokenAnalysis,
    registry: fastify.registry,
    reputation: fastify.reputation,
    manifest: createManifestBuilder(config, fastify.catalogue)
  }, () => { throw new Error('no A2A skill reads the base URL') }, fastify.catalogue)
  const seller = createSkillSeller({
    core: fastify.delivery,
    payments: fastify.x402,
    tools,
    checkFailureLimit: client => fastify.delivery.checkFailureLimit(client),
    countUnpaid: service => store.audit.countUnpaid(service, 'PAYMENT_REQUIRED'),
    network: fastify.x402.network.v2,
    catalogue: fastify.catalogue
  })
  const tasks = createMerchantTaskStore(store.a2aTasks, { retentionMs: config.DELIVERY_RETENTION_SECONDS * 1000, unpaidTask: seller.unpaidTask })
  const cardAt = createAgentCard({ name: config.AGENT_NAME, description: config.AGENT_DESCRIPTION, version: SERVICE_VERSION, symbol: config.PAYMENT_TOKEN_SYMBOL, catalogue: fastify.catalogue, mpp: config.MPP_CHARGE })

  // The card names the endpoint's absolute URL, so each base URL has its card and its handlers.
  const doors = perPublicBase(config.PUBLIC_BASE_URL, BASES, base => {
    const card: AgentCard = cardAt(base)
    const handler = new MerchantRequestHandler(card, tasks, seller, log)
    return {
      card,
      // The SDK's own JSON of the card (proto JSON: defaults left out), as its adapters serve it.
      cardText: JSON.stringify(AgentCard.toJSON(card)),
      legacyCardText: JSON.stringify(legacyAgentCard(card)),
      rpc: new JsonRpcTransportHandler(handler),
      legacy: new LegacyJsonRpcTransportHandler(handler)
    }
  })

  /** Resolves once the answer went out (true) or the client left first (false). */
  function whenAnswered (reply: FastifyReply): () => Promise<boolean> {
    let answered: Promise<boolean> | undefined
    return async () => await (answered ??= new Promise<boolean>(resolve => {
      if (reply.raw.writableFinished || reply.raw.destroyed) resolve(reply.raw.writableFinished)
      reply.raw.once('finish', () => resolve(true)).once('close', () => resolve(reply.raw.writableFinished))
    }))
  }

  async function handlePost (request: FastifyRequest, reply: FastifyReply) {
    const door = doors(request)
    const version = header(request, A2A_VERSION_HEADER)
    // Without A2A-Version a client speaks v0.3 (as the SDK's own adapters read it).
    const legacy = (version ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION
    const listed = Extensions.parseServiceParameter(legacy ? header(request, LEGACY_HTTP_EXTENSION_HEADER) ?? header(request, HTTP_EXTENSION_HEADER) : header(request, HTTP_EXTENSION_HEADER))
    const { requested, x402 } = requestedExtensions(listed)
    const context = defaultServerCallContextBuilder({ extensions: requested, user: new UnauthenticatedUser(), headers: request.headers, requestedVersion: version })
    let completedSent = false
    const answered = whenAnswered(reply)
    const call: CallState = {
      client: request.ip,
      requestId: request.id,
      reached: async () => await answered() && completedSent,
      clientGone: () => reply.raw.destroyed && !reply.raw.writableFinished,
      errorBodyOf: toolErrorBodies(request, request.log)
    }
    context.state.set(CALL_STATE, call)
    const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError
    const errorAnswer = (error: unknown): RpcAnswer => ({ jsonrpc: '2.0', id: idOf(request.body), error: mapError(asA2aError(error, request.log)) })
    let answer: RpcAnswer
    try {
      validateVersion(context.requestedVersion, door.card, 'JSONRPC')
      const handled = await (legacy ? door.legacy : door.rpc).handle(request.body as Record<string, unknown>, context)
      answer = Symbol.asyncIterator in handled ? await firstOfStream(handled, errorAnswer) : handled
    } catch (error) {
      answer = errorAnswer(error)
    }
    answer = withoutInternals(answer, request)
    for (const uri of x402) context.addActivatedExtension(uri)
    const activated = context.activatedExtensions ?? []
    if (activated.length > 0) reply.header(legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER, activated.join(', '))
    const completed = completedTaskOf(answer)
    completedSent = completed !== undefined
    const signature = completed?.metadata?.[TASK_META.payment]
    // A completed task handed over by another call than the one that paid (GetTask after a
    // returnImmediately purchase): its answer reached the buyer now, so the payment alone no longer
    // fetches it again (REDELIVERY=payment).
    if (typeof signature === 'string' && call.paying !== true) {
      answered().then(async sent => { if (sent) await fastify.delivery.handedOver(signature, 'a2a', request.id) })
        .catch((error: unknown) => request.log.error({ error: loggableError(error), signature }, 'a handed-over A2A answer not marked reached'))
    }
    return await reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(answer)
  }

  /** Streaming is not offered (the card says so): the SDK's stream fails on its first step, answered as one JSON-RPC error. */
  async function firstOfStream (stream: AsyncGenerator<RpcAnswer>, errorAnswer: (error: unknown) => RpcAnswer): Promise<RpcAnswer> {
    try {
      const first = await stream.next()
      await stream.return(undefined)
      if (!first.done) return first.value
      return errorAnswer(new Error('empty stream'))
    } catch (error) {
      return errorAnswer(error)
    }
  }

  /** An error the SDK mapped from a thrown non-A2A error carries that error's text: logged, not sent. */
  function withoutInternals (answer: RpcAnswer, request: FastifyRequest): RpcAnswer {
    const error = answer.error as { code?: number, message?: string, data?: unknown } | undefined
    if (error?.code !== INTERNAL_ERROR || error.data !== undefined) return answer
    request.log.error({ message: error.message }, 'A2A call failed inside the SDK')
    return { ...answer, error: { code: INTERNAL_ERROR, message: 'INTERNAL_ERROR: Internal server error; quote the request id when reporting it' } }
  }

  /** A body Fastify could not read as JSON: JSON-RPC's parse error; every other error keeps the common error shape. */
  function parseErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
    if (!UNREADABLE_JSON.has(error.code)) throw error
    return reply.code(400).send(jsonRpcErrorResponse(RPC_PARSE_ERROR, 'Parse error: the body is not valid JSON'))
  }

  const hidden = { hide: true }
  fastify.post(A2A_PATH, { schema: hidden, errorHandler: parseErrors }, handlePost)
  // v1.0 clients ask with A2A-Version (the SDK's resolver sends 1.0); others get the v0.3 card with the v1.0 interfaces beside.
  fastify.get(AGENT_CARD_PATH, { schema: hidden }, async (request, reply) => {
    const door = doors(request)
    const version = header(request, A2A_VERSION_HEADER)
    const text = version === undefined || version === A2A_LEGACY_PROTOCOL_VERSION ? door.legacyCardText : door.cardText
    return await reply.header('vary', A2A_VERSION_HEADER).header('cache-control', 'public, max-age=300').type('application/json; charset=utf-8').send(text)
  })
}, { name: 'a2a', fastify: '5.x', dependencies: ['config', 'store', 'x402', 'payment', 'prices', 'token-analysis', 'registry', 'reputation'] })

function idOf (body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}
