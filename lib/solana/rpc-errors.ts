import {
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__INTERNAL_ERROR,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR
} from '@solana/kit'
import { AppError } from '../errors/app-error.js'

const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_ABORTED', 'UND_ERR_CLOSED'])
const DEFAULT_RETRY_AFTER_SECONDS = 2

function errorCodeOf (error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' ? code : undefined
}

/**
 * True when an RPC call failed for reasons of the node or the network (unreachable, timed out,
 * HTTP error such as 429 or 5xx, node unhealthy), which is never the buyer's fault.
 */
export function isRpcUnavailable (error: unknown): boolean {
  if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) return true
  if (isSolanaError(error, SOLANA_ERROR__JSON_RPC__INTERNAL_ERROR)) return true
  // JSON-RPC server errors (-32000 to -32099: node unhealthy or behind, history not available,
  // a load-balanced node behind the one that served the previous read, ...) are the node's state.
  if (isSolanaError(error)) {
    const code = error.context.__code
    if (code >= -32099 && code <= -32000) return true
  }
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as { name?: unknown }).name
    if (name === 'AbortError' || name === 'TimeoutError') return true
    if (e instanceof TypeError && e.message === 'fetch failed') return true
    const code = errorCodeOf(e)
    if (code !== undefined && NETWORK_ERROR_CODES.has(code)) return true
  }
  return false
}

function retryAfterSeconds (error: unknown): number {
  if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    const header = Number(error.context.headers?.get?.('retry-after'))
    if (Number.isFinite(header) && header > 0) return Math.min(Math.ceil(header), 60)
  }
  return DEFAULT_RETRY_AFTER_SECONDS
}

/** The 503 a client sees when the Solana RPC cannot answer; nothing about the node leaks. */
export function rpcUnavailable (cause: unknown): AppError {
  const seconds = retryAfterSeconds(cause)
  return new AppError('RPC_UNAVAILABLE', 'The Solana RPC node is unavailable; nothing was charged or recorded, retry shortly',
    { cause, headers: { 'retry-after': String(seconds) }, details: { retryAfterSeconds: seconds } })
}

/**
 * Any JSON-RPC error the node answered (-32700 to -32000). For a request this service built from
 * checked input (a well-formed signature, say), even "invalid params" is the node's failing, not
 * the buyer's: the paid path answers it 503 like an unavailable node.
 */
export function isNodeError (error: unknown): boolean {
  if (!isSolanaError(error)) return false
  const code = error.context.__code
  return typeof code === 'number' && code >= -32700 && code <= -32000
}

/** Runs one RPC call; a failure of the node or the network becomes the 503 RPC_UNAVAILABLE answer. */
export async function callRpc<T> (call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (isRpcUnavailable(error)) throw rpcUnavailable(error)
    throw error
  }
}
