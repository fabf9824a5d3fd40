/** JSON-RPC 2.0 error codes the MCP and A2A endpoints answer with. */
export const RPC_PARSE_ERROR = -32700
export const RPC_INVALID_REQUEST = -32600
export const RPC_METHOD_NOT_FOUND = -32601
export const RPC_INVALID_PARAMS = -32602

/**
 * An error a request handler throws to answer a JSON-RPC error: the SDK sends `code`, `message` and
 * `data` as they are (its McpError would prefix the message with "MCP error <code>: ").
 */
export class JsonRpcError extends Error {
  constructor (readonly code: number, message: string, readonly data?: unknown) {
    super(message)
    this.name = 'JsonRpcError'
  }
}

/** A JSON-RPC 2.0 error response with no request to answer (id null), as the spec asks for a body it cannot read. */
export function jsonRpcErrorResponse (code: number, message: string): { jsonrpc: '2.0', id: null, error: { code: number, message: string } } {
  return { jsonrpc: '2.0', id: null, error: { code, message } }
}

/** A JSON object (not null, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isId = (value: unknown) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))

/** Why one message is not a JSON-RPC 2.0 request, notification or response; undefined when it is one. */
function messageProblem (message: unknown): string | undefined {
  if (!isObject(message)) return 'a message must be a JSON object'
  if (message.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"'
  if ('method' in message) {
    if (typeof message.method !== 'string') return 'method must be a string'
    if ('id' in message && !isId(message.id)) return 'id must be a string or a number'
    if ('params' in message && !isObject(message.params) && !Array.isArray(message.params)) return 'params must be an object'
    return undefined
  }
  if (!isId(message.id) && message.id !== null) return 'a message needs a method, or an id with a result or an error'
  return 'result' in message || 'error' in message ? undefined : 'a response needs a result or an error'
}

/**
 * Why a POST body is not JSON-RPC 2.0 (one message or a non-empty batch of them): -32600 Invalid
 * Request, answered before the SDK transport (which calls such a body a parse error, and answers
 * an empty batch with nothing). Undefined when the body is well-formed.
 */
export function invalidRequestReason (body: unknown): string | undefined {
  if (Array.isArray(body)) {
    if (body.length === 0) return 'Invalid Request: an empty batch'
    const problem = body.map(messageProblem).find(found => found !== undefined)
    return problem === undefined ? undefined : `Invalid Request: ${problem} (in a batch)`
  }
  const problem = messageProblem(body)
  return problem === undefined ? undefined : `Invalid Request: ${problem}`
}

/** The framework's refusals of a body it could not read as JSON: JSON-RPC's parse error. */
const UNREADABLE_JSON = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY'])
export const NOT_JSON_MESSAGE = 'Invalid Request: Content-Type must be application/json'

/**
 * A JSON-RPC endpoint's answer to a body the framework refused before any handler ran (by the
 * refusal's code): -32700 for JSON it could not read, and, where `mediaType` is asked for, -32600
 * with 415 for a body that is not JSON at all. Undefined for every other error, which keeps the
 * common error shape.
 */
export function unreadableBodyAnswer (errorCode: string, options: { mediaType: boolean }): { statusCode: number, body: ReturnType<typeof jsonRpcErrorResponse> } | undefined {
  if (options.mediaType && errorCode === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return { statusCode: 415, body: jsonRpcErrorResponse(RPC_INVALID_REQUEST, NOT_JSON_MESSAGE) }
  if (!UNREADABLE_JSON.has(errorCode)) return undefined
  return { statusCode: 400, body: jsonRpcErrorResponse(RPC_PARSE_ERROR, 'Parse error: the body is not valid JSON') }
}
