import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ListToolsRequestSchema, type CallToolResult, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'
import { validationError, type ErrorBody } from '../../errors/error-body.js'
import { JsonRpcError, RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND } from '../../http/json-rpc.js'
import { toolCallParams } from './tool-call-params.js'
import type { MerchantTools } from '../../tools/merchant-tools.js'
import type { PaidToolCall } from './paid-tool-call.js'
import type { ArgumentCheck } from './tool-arguments.js'
import type { McpToolName, ToolListing } from '../../tools/tool-catalog.js'
import { documentResult, errorResult } from './tool-results.js'
import { X402_PAYMENT_META_KEY } from '../../../schemas/mcp.js'
import { MPP_CREDENTIAL_META_KEY } from './mpp-charge.js'

/** What a tool call needs from the HTTP request that carries it. */
export interface RequestTools {
  merchantTools: MerchantTools
  callPaidTool: (call: PaidToolCall) => Promise<CallToolResult>
  errorBodyOf: (error: unknown) => ErrorBody
  /** The answer to tools/list (its schemas name the OpenAPI document's URL). */
  tools: readonly ToolListing[]
}

export interface MerchantMcpServerOptions {
  info: { name: string, version: string, title?: string }
  /** One per tool of the catalogue and the free documents: a name without one is no tool. */
  argumentChecks: ReadonlyMap<McpToolName, ArgumentCheck>
  /** The tools of the HTTP request being served: a server outlives its requests (mcp-door.ts keeps a pool). */
  requestTools: () => RequestTools
  instructions?: string
}

/**
 * The merchant as an MCP server: tools/list and tools/call over the same services as the HTTP
 * routes, with the JSON Schemas derived from the routes' TypeBox models. tools/call is answered by
 * the fallback handler, which gets the request unparsed: the SDK's own handler would answer a
 * malformed call with -32603 and a zod dump, MCP asks for -32602 Invalid params.
 */
export function createMerchantMcpServer (options: MerchantMcpServerOptions): Server {
  // listChanged false: the tools never change while the server runs, and a stateless server could not say so.
  const server = new Server(options.info, { capabilities: { tools: { listChanged: false } }, instructions: options.instructions })

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...options.requestTools().tools] }))

  const callTool = createToolCallHandler(options)
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method === 'tools/call') return await callTool(request, extra.signal)
    throw new JsonRpcError(RPC_METHOD_NOT_FOUND, 'Method not found')
  }

  return server
}

/**
 * A tools/call request's answer: the handler the SDK's server runs for it, and the one the HTTP
 * door runs itself for a single call (lib/doors/mcp/direct-tool-call.ts). A protocol error is thrown
 * as a JsonRpcError; everything else is a tool result.
 */
export function createToolCallHandler (options: Pick<MerchantMcpServerOptions, 'argumentChecks' | 'requestTools'>) {
  const { argumentChecks } = options

  return async function callTool (request: JSONRPCRequest, signal: AbortSignal): Promise<CallToolResult> {
    const params = toolCallParams(request.params)
    const { name } = params
    // An unknown tool is a protocol error (MCP: -32602), not a tool result.
    if (!argumentChecks.has(name)) throw new JsonRpcError(RPC_INVALID_PARAMS, `Unknown tool "${name}"`)
    const { merchantTools, errorBodyOf, callPaidTool } = options.requestTools()
    const args = params.arguments ?? {}
    try {
      const problems = argumentChecks.get(name)?.(args) ?? []
      if (problems.length > 0) throw validationError(problems)
      await merchantTools.precheck(name, args)
    } catch (error) {
      return errorResult(errorBodyOf(error))
    }

    const service = merchantTools.paidServiceOf(name)
    if (service === undefined) {
      try {
        return documentResult(await merchantTools.run(name, args))
      } catch (error) {
        return errorResult(errorBodyOf(error))
      }
    }
    try {
      return await callPaidTool({
        tool: name,
        service,
        payload: params._meta?.[X402_PAYMENT_META_KEY],
        credential: params._meta?.[MPP_CREDENTIAL_META_KEY],
        arguments: args,
        requestId: request.id,
        run: async () => await merchantTools.run(name, args),
        signal
      })
    } catch (error) {
      // Not a JSON-RPC error, which would carry the internal message: the error body, logged.
      return errorResult(errorBodyOf(error))
    }
  }
}
