import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { CallToolRequestSchema, ErrorCode as RpcErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { validationError, type ErrorBody } from '../errors/error-body.js'
import type { MerchantTools } from './merchant-tools.js'
import type { PaidToolCall } from './paid-tool-call.js'
import type { ArgumentCheck } from './tool-arguments.js'
import { isMcpToolName, paidServiceOf, type McpToolName, type ToolListing } from './tool-catalog.js'
import { documentResult, errorResult } from './tool-results.js'
import { X402_PAYMENT_META_KEY } from './x402-meta.js'

export interface MerchantMcpServerOptions {
  info: { name: string, version: string, title?: string }
  /** Built once per process (tool-catalog.ts). */
  tools: readonly ToolListing[]
  argumentChecks: ReadonlyMap<McpToolName, ArgumentCheck>
  merchantTools: MerchantTools
  callPaidTool: (call: PaidToolCall) => Promise<CallToolResult>
  errorBodyOf: (error: unknown) => ErrorBody
  instructions?: string
}

/**
 * The merchant as an MCP server: tools/list and tools/call over the same services as the HTTP
 * routes. Tools are declared with the JSON Schemas derived from the routes' TypeBox models (the
 * SDK's registerTool takes zod schemas only, so the two handlers are set on the underlying server).
 * One server per HTTP request: the transport is stateless.
 */
export function createMerchantMcpServer (options: MerchantMcpServerOptions): McpServer {
  const { merchantTools, argumentChecks, errorBodyOf } = options
  const mcp = new McpServer(options.info, { capabilities: { tools: {} }, instructions: options.instructions })

  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...options.tools] }))

  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params
    // An unknown tool is a protocol error (MCP: -32602), not a tool result.
    if (!isMcpToolName(name)) throw new McpError(RpcErrorCode.InvalidParams, `Unknown tool "${name}"`)
    const args = request.params.arguments ?? {}
    try {
      const problems = argumentChecks.get(name)?.(args) ?? []
      if (problems.length > 0) throw validationError(problems)
      await merchantTools.precheck(name, args)
    } catch (error) {
      return errorResult(errorBodyOf(error))
    }

    const service = paidServiceOf(name)
    if (service === undefined) {
      try {
        return documentResult(await merchantTools.run(name, args))
      } catch (error) {
        return errorResult(errorBodyOf(error))
      }
    }
    try {
      return await options.callPaidTool({
        tool: name,
        service,
        payload: request.params._meta?.[X402_PAYMENT_META_KEY],
        arguments: args,
        requestId: extra.requestId,
        run: async () => await merchantTools.run(name, args),
        signal: extra.signal
      })
    } catch (error) {
      // Not the SDK's JSON-RPC error, which would carry the internal message: the error body, logged.
      return errorResult(errorBodyOf(error))
    }
  })

  return mcp
}
