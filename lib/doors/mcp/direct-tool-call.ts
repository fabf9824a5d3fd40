import { RELATED_TASK_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'

/**
 * The one message the merchant answers without the SDK's transport: a single (not batched)
 * tools/call request, nothing else in it, from a client whose headers the transport would accept.
 * It is the paid path's every call; the SDK's stateless transport costs it a transport, a Web
 * Request and Response, and several failing zod guards per call (docs/performance.md). Anything
 * else, including every message the transport would refuse, stays on the SDK, so those answers
 * are the SDK's own by construction (test/plugins/mcp/direct-calls.test.ts compares the rest).
 */

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])
const PROTOCOL_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS)

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
// The transport's RequestIdSchema and ProgressTokenSchema: a string or an integer.
const isIdOrToken = (value: unknown) => typeof value === 'string' || Number.isInteger(value)

interface CallHeaders {
  accept?: string
  'mcp-protocol-version'?: string | string[]
}

/** Headers the transport checks on every POST: it accepts both answer types, speaks a known version. */
function transportAccepts (headers: CallHeaders): boolean {
  const accept = headers.accept ?? ''
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false
  const version = headers['mcp-protocol-version']
  return version === undefined || (typeof version === 'string' && PROTOCOL_VERSIONS.has(version))
}

/** params as the transport's schema reads them, without task augmentation or a related task. */
function plainParams (params: unknown): boolean {
  if (params === undefined) return true
  if (!isPlainObject(params) || 'task' in params) return false
  const meta = params._meta
  if (meta === undefined) return true
  if (!isPlainObject(meta) || RELATED_TASK_META_KEY in meta) return false
  return !('progressToken' in meta) || isIdOrToken(meta.progressToken)
}

/** The body as a tools/call the merchant answers itself, or undefined for the SDK to handle. */
export function directToolCall (body: unknown, headers: CallHeaders): JSONRPCRequest | undefined {
  if (!isPlainObject(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0') return undefined
  if (!Object.keys(body).every(key => REQUEST_KEYS.has(key)) || !isIdOrToken(body.id)) return undefined
  if (!plainParams(body.params) || !transportAccepts(headers)) return undefined
  return body as unknown as JSONRPCRequest
}

/** The answer's body, byte for byte as the SDK's protocol layer serialises a result or an error. */
export function directAnswerBody (request: JSONRPCRequest, outcome: { result: unknown } | { error: unknown }): string {
  if ('result' in outcome) return JSON.stringify({ result: outcome.result, jsonrpc: '2.0', id: request.id })
  const error = outcome.error as { code?: unknown, message?: string, data?: unknown }
  return JSON.stringify({
    jsonrpc: '2.0',
    id: request.id,
    error: {
      code: Number.isSafeInteger(error.code) ? error.code : -32603,
      message: error.message ?? 'Internal error',
      ...(error.data !== undefined && { data: error.data })
    }
  })
}
