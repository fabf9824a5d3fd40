import { AsyncLocalStorage } from 'node:async_hooks'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'
import type { TSchema } from '@sinclair/typebox'
import type { Catalogue } from '../../catalogue/catalogue.js'
import { AppError } from '../../errors/app-error.js'
import { errorBody } from '../../errors/error-body.js'
import { loggableError } from '../../errors/loggable-error.js'
import { invalidRequestReason, jsonRpcErrorResponse, NOT_JSON_MESSAGE, RPC_INVALID_REQUEST } from '../../http/json-rpc.js'
import { MCP_PATH } from '../../manifest/merchant-manifest.js'
import { createOriginPolicy } from '../../http/origin-policy.js'
import { whenAnswered } from '../../http/when-answered.js'
import { createMerchantTools, type ToolServices } from '../../tools/merchant-tools.js'
import { listTools, toolPricing, type ToolListing } from '../../tools/tool-catalog.js'
import { toolErrorBodies } from '../../tools/tool-errors.js'
import { MCP_SESSION_HEADER } from '../../../schemas/mcp.js'
import { createCallCancellation } from './call-cancellation.js'
import { directAnswerBody, directToolCall } from './direct-tool-call.js'
import { createMerchantMcpServer, createToolCallHandler, type RequestTools } from './merchant-mcp-server.js'
import { createPaidToolCaller, type PaidToolCallDeps, type ToolCharge } from './paid-tool-call.js'
import { compileArgumentChecks } from './tool-arguments.js'

/** Messages of a batch that each count toward RATE_LIMIT_MAX. */
const COUNTED_METHODS = new Set<unknown>(['tools/call', 'notifications/cancelled'])
/** Idle MCP servers kept for the next requests (a server serves one transport at a time). */
const IDLE_SERVERS = 32
/** Tool lists kept, one per public base URL (the Host header names it when PUBLIC_BASE_URL is unset). */
const TOOL_LISTS = 8

type DoorLog = { warn: (details: object, message: string) => void, error: (details: object, message: string) => void }

/**
 * One POST /mcp and its answer as the door sees them. The web framework's glue fills it
 * (plugins/app/mcp.ts), so the door names no framework.
 */
export interface McpExchange {
  readonly body: unknown
  readonly headers: IncomingHttpHeaders
  /** The client's address: the failure limit counts per client. */
  readonly ip: string
  /** The request id every answer and log line carries. */
  readonly id: string
  readonly log: DoorLog
  /** The request and answer as Node has them: the SDK's transport reads and writes these. */
  readonly raw: { request: IncomingMessage, response: ServerResponse }
  /** The public base URL of the request (throws 400 for a Host that is not a valid host). */
  baseUrl: () => string
  /** Answers in JSON now. */
  sendJson: (statusCode: number, body: object) => Promise<void>
  setHeader: (name: string, value: string) => void
  /** The raw answer is the door's from here, with the headers set so far written on it. */
  takeAnswer: () => void
  /** Counts one more request of this client toward the rate limit: false once it is over it. */
  countRequest?: () => Promise<boolean>
}

export interface McpDoorOptions {
  info: { name: string, version: string, title?: string }
  /** The agent's description, followed in the server's instructions by the tools' prices. */
  description: string
  tokenSymbol: string
  /** The named models the tools' schemas may reference (schemas/index.ts's MODELS). */
  models: readonly TSchema[]
  catalogue: Catalogue
  services: ToolServices
  /** Serve a lone tools/call without the SDK's transport (MCP_DIRECT_CALLS). */
  directCalls: boolean
  rateLimit: { max: number, windowMs: number }
  /** The browser origins that may call (MCP_ALLOWED_ORIGINS) beside loopback and PUBLIC_BASE_URL's. */
  allowedOrigins: '*' | string[]
  publicBaseUrl: string | undefined
  /** The HTTP door's core and failure limit: one client, one count. */
  paid: Pick<PaidToolCallDeps, 'core' | 'payments' | 'countUnpaid' | 'checkFailureLimit'>
  /** MPP's charge, unless MPP_CHARGE=false. */
  charge: ToolCharge | undefined
  /** Ends a call in the store on a cancel notice (the store's cancelCall). */
  cancelCall: (callerRef: string) => Promise<boolean>
}

/**
 * The merchant as an MCP server: MCP's streamable HTTP transport (official SDK, stateless, JSON
 * answers), with the products as tools paid through x402's MCP transport (and MPP's charge) and
 * the free documents as free tools. A body that is not JSON-RPC 2.0 is answered in JSON-RPC
 * (-32600), as MCP clients read it; each tool call or cancel notice of a batch past the first
 * counts toward the rate limit. The SDK's stateless transport serves one request only, so it is
 * made per request; servers are pooled, and reach the request they serve through an
 * AsyncLocalStorage.
 */
export function createMcpDoor (options: McpDoorOptions) {
  const { catalogue } = options
  const toolLists = new Map<string, ToolListing[]>()
  function toolsFor (baseUrl: string): ToolListing[] {
    let tools = toolLists.get(baseUrl)
    if (tools === undefined) {
      tools = listTools(options.tokenSymbol, options.models, `${baseUrl}/openapi.json`, catalogue)
      if (toolLists.size >= TOOL_LISTS) toolLists.delete(toolLists.keys().next().value as string)
      toolLists.set(baseUrl, tools)
    }
    return tools
  }
  const argumentChecks = compileArgumentChecks(catalogue)
  const instructions = `${options.description} ${toolPricing(catalogue)}`
  const cancellation = createCallCancellation({ cancelCall: options.cancelCall })
  const originAllowed = createOriginPolicy({ allowed: options.allowedOrigins, publicBaseUrl: options.publicBaseUrl })

  /** What the tools need of the HTTP request carrying the call. */
  function requestToolsOf (exchange: McpExchange): RequestTools {
    const errorBodyOf = toolErrorBodies(exchange, exchange.log)
    const callPaidTool = createPaidToolCaller({
      ...options.paid,
      catalogue,
      charge: options.charge,
      errorBodyOf,
      client: exchange.ip,
      requestId: exchange.id,
      callerRefOf: jsonRpcId => cancellation.callerRefOf(exchange.headers[MCP_SESSION_HEADER], jsonRpcId),
      answered: whenAnswered(exchange.raw.response),
      cancelledHere: callerRef => cancellation.cancelledHere(callerRef)
    })
    let tools: ToolListing[] | undefined
    return {
      merchantTools: createMerchantTools(options.services, exchange.baseUrl, catalogue),
      callPaidTool,
      errorBodyOf,
      // A Host header that is not a valid host is refused when a schema would name it, as on HTTP.
      get tools () { return (tools ??= toolsFor(exchange.baseUrl())) }
    }
  }

  const current = new AsyncLocalStorage<RequestTools>()
  const requestTools = () => {
    const tools = current.getStore()
    if (tools === undefined) throw new Error('MCP request handled outside of its HTTP request')
    return tools
  }
  const idle: Array<ReturnType<typeof createMerchantMcpServer>> = []
  const takeServer = () => idle.pop() ?? createMerchantMcpServer({ info: options.info, argumentChecks, requestTools, instructions })
  const callTool = createToolCallHandler({ argumentChecks, requestTools })

  /**
   * A single tools/call answered as the SDK's transport and server would (direct-tool-call.ts):
   * the same handler, the same JSON, and, as there, a client that leaves aborts the call and gets nothing.
   */
  async function answerDirectly (call: JSONRPCRequest, exchange: McpExchange): Promise<void> {
    exchange.takeAnswer()
    const { response } = exchange.raw
    const left = new AbortController()
    response.once('close', () => left.abort())
    let body: string
    try {
      body = directAnswerBody(call, { result: await current.run(requestToolsOf(exchange), async () => await callTool(call, left.signal)) })
    } catch (error) {
      body = directAnswerBody(call, { error })
    }
    if (left.signal.aborted) return
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
  }

  /** The HTTP request counted once already; each tool call or cancel notice of a batch past the first counts too. */
  async function withinRateLimit (exchange: McpExchange): Promise<boolean> {
    if (exchange.countRequest === undefined || !Array.isArray(exchange.body)) return true
    const calls = exchange.body.filter(message => COUNTED_METHODS.has((message as { method?: unknown } | null)?.method)).length
    for (let i = 1; i < calls; i++) {
      if (!await exchange.countRequest()) return false
    }
    return true
  }

  async function answerThroughTransport (exchange: McpExchange): Promise<void> {
    const server = takeServer()
    // A session id names this client's calls, so its cancel notices can find them (stateless otherwise).
    if (cancellation.initializes(exchange.body)) exchange.setHeader(MCP_SESSION_HEADER, cancellation.newSessionId())
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    const { request, response } = exchange.raw
    // From here the transport writes the answer.
    exchange.takeAnswer()
    const connecting = server.connect(transport)
    // The answer is out (or the client left): the transport is spent, the server goes back to the
    // pool, once connected (a client leaving early must not pool a server about to connect).
    response.on('close', () => {
      connecting.catch(() => {}).then(async () => await transport.close()).then(() => {
        if (server.transport === undefined && idle.length < IDLE_SERVERS) idle.push(server)
      }, () => {})
    })
    try {
      await connecting
      await current.run(requestToolsOf(exchange), async () => await transport.handleRequest(request, response, exchange.body))
    } catch (error) {
      exchange.log.error({ error: loggableError(error) }, 'MCP transport failed')
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
        response.end(JSON.stringify(errorBody(exchange, 500, 'INTERNAL_ERROR', 'Internal server error; quote the request id when reporting it')))
      }
    }
  }

  return {
    /** Every method's first check: a fixed list of browser origins, against DNS rebinding. */
    checkOrigin (origin: string | undefined): void {
      if (!originAllowed(origin)) {
        throw new AppError('FORBIDDEN', `Origin ${JSON.stringify(origin)} may not call the MCP endpoint; allowed: no Origin, loopback, PUBLIC_BASE_URL, MCP_ALLOWED_ORIGINS`)
      }
    },

    /** POST /mcp: one JSON-RPC message or a batch, answered in JSON. */
    async post (exchange: McpExchange): Promise<void> {
      if (!await withinRateLimit(exchange)) {
        const seconds = Math.ceil(options.rateLimit.windowMs / 1000)
        throw new AppError('RATE_LIMITED', `Rate limit of ${options.rateLimit.max} requests per ${seconds} s exceeded: each tool call or cancel notice of a batch counts as a request`,
          { headers: { 'retry-after': String(seconds) }, details: { retryAfterSeconds: seconds } })
      }
      if (exchange.headers['content-type']?.split(';')[0].trim().toLowerCase() !== 'application/json') {
        return await exchange.sendJson(415, jsonRpcErrorResponse(RPC_INVALID_REQUEST, NOT_JSON_MESSAGE))
      }
      const invalid = invalidRequestReason(exchange.body)
      if (invalid !== undefined) return await exchange.sendJson(400, jsonRpcErrorResponse(RPC_INVALID_REQUEST, invalid))
      await cancellation.cancelNoticed(exchange.headers[MCP_SESSION_HEADER], exchange.body)
      const direct = options.directCalls ? directToolCall(exchange.body, exchange.headers) : undefined
      if (direct !== undefined) return await answerDirectly(direct, exchange)
      await answerThroughTransport(exchange)
    },

    /** GET and DELETE: 405, as the transport allows a stateless server (no server-initiated stream, no session to end). */
    refuseMethod (method: string): never {
      throw new AppError('METHOD_NOT_ALLOWED', `${method} ${MCP_PATH}: this MCP server is stateless (no server-initiated stream, no session); send requests with POST`,
        { headers: { allow: 'POST, OPTIONS' } })
    }
  }
}
