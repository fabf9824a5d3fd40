import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyError, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { AppError } from '../../lib/errors/app-error.js'
import { errorBody } from '../../lib/errors/error-body.js'
import { loggableError } from '../../lib/errors/loggable-error.js'
import { publicBaseUrl } from '../../lib/http/public-url.js'
import { createManifestBuilder, MCP_PATH } from '../../lib/manifest/merchant-manifest.js'
import { invalidRequestReason, jsonRpcErrorResponse, RPC_INVALID_REQUEST, RPC_PARSE_ERROR } from '../../lib/http/json-rpc.js'
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'
import { directAnswerBody, directToolCall } from '../../lib/doors/mcp/direct-tool-call.js'
import { createMerchantMcpServer, createToolCallHandler, type RequestTools } from '../../lib/doors/mcp/merchant-mcp-server.js'
import { createMerchantTools } from '../../lib/tools/merchant-tools.js'
import { createCallCancellation } from '../../lib/doors/mcp/call-cancellation.js'
import { MCP_SESSION_HEADER } from '../../schemas/mcp.js'
import { createOriginPolicy, parseOriginList } from '../../lib/http/origin-policy.js'
import { createPaidToolCaller, type ToolCharge } from '../../lib/doors/mcp/paid-tool-call.js'
import { chargeToolMethod } from '../../lib/doors/mcp/mpp-charge.js'
import { compileArgumentChecks } from '../../lib/doors/mcp/tool-arguments.js'
import { listTools, toolPricing, type ToolListing } from '../../lib/tools/tool-catalog.js'
import { toolErrorBodies } from '../../lib/tools/tool-errors.js'
import { SERVICE_VERSION } from '../../project.js'
import { MODELS } from '../../schemas/index.js'

/** Messages of a batch that each count toward RATE_LIMIT_MAX. */
const COUNTED_METHODS = new Set<unknown>(['tools/call', 'notifications/cancelled'])

/** Idle MCP servers kept for the next requests (a server serves one transport at a time). */
const IDLE_SERVERS = 32
/** Tool lists kept, one per public base URL (the Host header names it when PUBLIC_BASE_URL is unset). */
const TOOL_LISTS = 8

/** Fastify's refusals of a body it could not read as JSON: JSON-RPC's parse error. */
const UNREADABLE_JSON = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY'])
const NOT_JSON_MESSAGE = 'Invalid Request: Content-Type must be application/json'

/** Preflight of a browser MCP client: the methods and headers of the streamable HTTP transport. */
const MCP_PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
  'access-control-allow-headers': 'content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, x-request-id',
  'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, x-request-id, retry-after',
  'access-control-max-age': '600'
} as const

/**
 * The merchant as an MCP server on the same port: POST /mcp speaks MCP's streamable HTTP transport
 * (official SDK, stateless, JSON answers), with the products as tools paid through x402's MCP
 * transport and the free documents as free tools. GET and DELETE answer 405 as the transport
 * allows a stateless server to (no server-initiated stream, no session to end). The rate limit
 * applies as on every route (its onRequest hook is global); the Origin is checked against a fixed
 * list against DNS rebinding. A body that is not JSON-RPC 2.0 is answered in JSON-RPC (-32700,
 * -32600), as MCP clients read it. The SDK's stateless transport serves one request only, so it is
 * made per request; servers are pooled, and reach the request they serve through an
 * AsyncLocalStorage.
 */
export default fp(async (fastify) => {
  const { config, store } = fastify
  const toolLists = new Map<string, ToolListing[]>()
  function toolsFor (baseUrl: string): ToolListing[] {
    let tools = toolLists.get(baseUrl)
    if (tools === undefined) {
      tools = listTools(config.PAYMENT_TOKEN_SYMBOL, MODELS, `${baseUrl}/openapi.json`, fastify.catalogue)
      if (toolLists.size >= TOOL_LISTS) toolLists.delete(toolLists.keys().next().value as string)
      toolLists.set(baseUrl, tools)
    }
    return tools
  }
  const argumentChecks = compileArgumentChecks(fastify.catalogue)
  const manifest = createManifestBuilder(config, fastify.catalogue)
  const originAllowed = createOriginPolicy({ allowed: parseOriginList(config.MCP_ALLOWED_ORIGINS) ?? [], publicBaseUrl: config.PUBLIC_BASE_URL })
  const info = { name: config.AGENT_NAME, title: config.AGENT_NAME, version: SERVICE_VERSION }
  const instructions = `${config.AGENT_DESCRIPTION} ${toolPricing(fastify.catalogue)}`

  // MPP's charge as a way to pay a tool (lib/doors/mcp/mpp-charge.ts), unless MPP_CHARGE=false.
  const charge: ToolCharge | undefined = fastify.mpp === undefined
    ? undefined
    : { challenges: fastify.mpp.challenges.challenges, method: chargeToolMethod(fastify.mpp.payments) }

  const cancellation = createCallCancellation({ cancelCall: async callerRef => await store.claims.cancelCall(callerRef) })

  /** Resolves once the answer went out (true) or the client left first (false). */
  function whenAnswered (reply: FastifyReply): () => Promise<boolean> {
    let answered: Promise<boolean> | undefined
    return async () => await (answered ??= new Promise<boolean>(resolve => {
      if (reply.raw.writableFinished || reply.raw.destroyed) resolve(reply.raw.writableFinished)
      reply.raw.once('finish', () => resolve(true)).once('close', () => resolve(reply.raw.writableFinished))
    }))
  }

  const checkOrigin: onRequestAsyncHookHandler = async (request) => {
    const origin = request.headers.origin
    if (!originAllowed(origin)) {
      throw new AppError('FORBIDDEN', `Origin ${JSON.stringify(origin)} may not call the MCP endpoint; allowed: no Origin, loopback, PUBLIC_BASE_URL, MCP_ALLOWED_ORIGINS`)
    }
  }

  /** What the tools need of the HTTP request carrying the call. */
  function requestToolsOf (request: FastifyRequest, reply: FastifyReply): RequestTools {
    const errorBodyOf = toolErrorBodies(request, request.log)
    const baseUrl = () => publicBaseUrl(request, config.PUBLIC_BASE_URL)
    const merchantTools = createMerchantTools({
      prices: fastify.prices,
      tokenAnalysis: fastify.tokenAnalysis,
      registry: fastify.registry,
      reputation: fastify.reputation,
      manifest
    }, baseUrl, fastify.catalogue)
    // The paid-delivery core and the failure limit are the HTTP door's: one client, one count.
    const callPaidTool = createPaidToolCaller({
      core: fastify.delivery,
      payments: fastify.x402,
      catalogue: fastify.catalogue,
      charge,
      errorBodyOf,
      countUnpaid: service => store.audit.countUnpaid(service, 'PAYMENT_REQUIRED'),
      checkFailureLimit: client => fastify.delivery.checkFailureLimit(client),
      client: request.ip,
      requestId: request.id,
      callerRefOf: jsonRpcId => cancellation.callerRefOf(request.headers[MCP_SESSION_HEADER], jsonRpcId),
      answered: whenAnswered(reply),
      cancelledHere: callerRef => cancellation.cancelledHere(callerRef)
    })
    let tools: ToolListing[] | undefined
    return {
      merchantTools,
      callPaidTool,
      errorBodyOf,
      // A Host header that is not a valid host is refused when a schema would name it, as on HTTP.
      get tools () { return (tools ??= toolsFor(baseUrl())) }
    }
  }

  const current = new AsyncLocalStorage<RequestTools>()
  const requestTools = () => {
    const tools = current.getStore()
    if (tools === undefined) throw new Error('MCP request handled outside of its HTTP request')
    return tools
  }
  const idle: Array<ReturnType<typeof createMerchantMcpServer>> = []
  const takeServer = () => idle.pop() ?? createMerchantMcpServer({ info, argumentChecks, requestTools, instructions })
  const callTool = createToolCallHandler({ argumentChecks, requestTools })

  /** Writes the headers set so far (security, CORS, request id, rate limit) on the raw answer, which is ours from here. */
  function takeAnswer (reply: FastifyReply): void {
    reply.hijack()
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value)
    }
  }

  /**
   * A single tools/call answered as the SDK's transport and server would (lib/doors/mcp/direct-tool-call.ts):
   * the same handler, the same JSON, and, as there, a client that leaves aborts the call and gets nothing.
   */
  async function answerDirectly (call: JSONRPCRequest, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    takeAnswer(reply)
    const left = new AbortController()
    reply.raw.once('close', () => left.abort())
    let body: string
    try {
      body = directAnswerBody(call, { result: await current.run(requestToolsOf(request, reply), async () => await callTool(call, left.signal)) })
    } catch (error) {
      body = directAnswerBody(call, { error })
    }
    if (left.signal.aborted) return
    reply.raw.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
  }

  // The global rate limit counts an HTTP request once; a JSON-RPC batch holds several calls, so each
  // tool call or cancel notice past the first counts too (the same counter and key as the global
  // limit): a notice costs a store write.
  const countCall = fastify.hasDecorator('createRateLimit') ? fastify.createRateLimit() : undefined
  async function withinRateLimit (request: FastifyRequest): Promise<boolean> {
    if (countCall === undefined || !Array.isArray(request.body)) return true
    const calls = request.body.filter(message => COUNTED_METHODS.has((message as { method?: unknown } | null)?.method)).length
    for (let i = 1; i < calls; i++) {
      const counted = await countCall(request)
      if (!counted.isAllowed && counted.isExceeded) return false
    }
    return true
  }

  async function handlePost (request: FastifyRequest, reply: FastifyReply) {
    if (!await withinRateLimit(request)) {
      const seconds = Math.ceil(config.RATE_LIMIT_WINDOW_MS / 1000)
      throw new AppError('RATE_LIMITED', `Rate limit of ${config.RATE_LIMIT_MAX} requests per ${seconds} s exceeded: each tool call or cancel notice of a batch counts as a request`,
        { headers: { 'retry-after': String(seconds) }, details: { retryAfterSeconds: seconds } })
    }
    if (request.headers['content-type']?.split(';')[0].trim().toLowerCase() !== 'application/json') {
      return await reply.code(415).send(jsonRpcErrorResponse(RPC_INVALID_REQUEST, NOT_JSON_MESSAGE))
    }
    const invalid = invalidRequestReason(request.body)
    if (invalid !== undefined) return await reply.code(400).send(jsonRpcErrorResponse(RPC_INVALID_REQUEST, invalid))
    await cancellation.cancelNoticed(request.headers[MCP_SESSION_HEADER], request.body)
    const direct = config.MCP_DIRECT_CALLS ? directToolCall(request.body, request.headers) : undefined
    if (direct !== undefined) return await answerDirectly(direct, request, reply)
    const server = takeServer()
    // A session id names this client's calls, so its cancel notices can find them (stateless otherwise).
    if (cancellation.initializes(request.body)) reply.header(MCP_SESSION_HEADER, cancellation.newSessionId())
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    // From here the transport writes the answer.
    takeAnswer(reply)
    const connecting = server.connect(transport)
    // The answer is out (or the client left): the transport is spent, the server goes back to the
    // pool, once connected (a client leaving early must not pool a server about to connect).
    reply.raw.on('close', () => {
      connecting.catch(() => {}).then(async () => await transport.close()).then(() => {
        if (server.transport === undefined && idle.length < IDLE_SERVERS) idle.push(server)
      }, () => {})
    })
    try {
      await connecting
      await current.run(requestToolsOf(request, reply), async () => await transport.handleRequest(request.raw, reply.raw, request.body))
    } catch (error) {
      request.log.error({ error: loggableError(error) }, 'MCP transport failed')
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
        reply.raw.end(JSON.stringify(errorBody(request, 500, 'INTERNAL_ERROR', 'Internal server error; quote the request id when reporting it')))
      }
    }
  }

  const methodNotAllowed = async (request: FastifyRequest) => {
    throw new AppError('METHOD_NOT_ALLOWED', `${request.method} ${MCP_PATH}: this MCP server is stateless (no server-initiated stream, no session); send requests with POST`,
      { headers: { allow: 'POST, OPTIONS' } })
  }

  /** A body Fastify could not read as JSON (or without a Content-Type): JSON-RPC's errors; every other error keeps the common error shape. */
  function parseErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return reply.code(415).send(jsonRpcErrorResponse(RPC_INVALID_REQUEST, NOT_JSON_MESSAGE))
    if (!UNREADABLE_JSON.has(error.code)) throw error
    return reply.code(400).send(jsonRpcErrorResponse(RPC_PARSE_ERROR, 'Parse error: the body is not valid JSON'))
  }

  const hidden = { hide: true }
  fastify.post(MCP_PATH, { schema: hidden, onRequest: checkOrigin, errorHandler: parseErrors }, handlePost)
  fastify.get(MCP_PATH, { schema: hidden, onRequest: checkOrigin }, methodNotAllowed)
  fastify.delete(MCP_PATH, { schema: hidden, onRequest: checkOrigin }, methodNotAllowed)
  fastify.options(MCP_PATH, { schema: hidden, onRequest: checkOrigin }, async (_request, reply) => reply.code(204).headers(MCP_PREFLIGHT_HEADERS).send())
}, { name: 'mcp', fastify: '5.x', dependencies: ['config', 'store', 'x402', 'payment', 'prices', 'token-analysis', 'registry', 'reputation'] })
