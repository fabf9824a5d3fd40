import { isObject, JsonRpcError, RPC_INVALID_PARAMS } from '../../http/json-rpc.js'

export interface ToolCallParams {
  name: string
  arguments?: Record<string, unknown>
  _meta?: Record<string, unknown>
}

/** The params of a tools/call request as MCP defines them, or -32602 Invalid params saying what is wrong. */
export function toolCallParams (params: unknown): ToolCallParams {
  if (!isObject(params)) throw new JsonRpcError(RPC_INVALID_PARAMS, 'Invalid params: tools/call needs params { name, arguments }')
  if (typeof params.name !== 'string') throw new JsonRpcError(RPC_INVALID_PARAMS, 'Invalid params: params.name must be the tool name, a string')
  if (params.arguments !== undefined && !isObject(params.arguments)) throw new JsonRpcError(RPC_INVALID_PARAMS, 'Invalid params: params.arguments must be an object')
  if (params._meta !== undefined && !isObject(params._meta)) throw new JsonRpcError(RPC_INVALID_PARAMS, 'Invalid params: params._meta must be an object')
  return params as unknown as ToolCallParams
}
