import { createSolanaRpcFromTransport, SolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, type RpcTransport } from '@solana/kit'
import { stringifyJsonWithBigInts } from '@solana/rpc-spec-types'
import type { IncomingHttpHeaders } from 'node:http'
import { Pool } from 'undici'
import { publishRpcCall, rpcFailureOutcome, type RpcCallOutcome } from '../metrics/events.js'
import { parseRpcJson } from './rpc-json.js'

/** A JSON-RPC 2.0 response: an object with a result or an error. */
function isJsonRpcEnvelope (value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ('result' in value || 'error' in value)
}

const REQUEST_HEADERS = { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' }

/** The node's answer as a JSON-RPC envelope; anything else is the node's failure, shaped like kit's HTTP error. */
function readEnvelope (statusCode: number, responseHeaders: IncomingHttpHeaders, text: string): unknown {
  if (statusCode < 200 || statusCode >= 300) {
    const headers = new Headers()
    for (const [name, value] of Object.entries(responseHeaders)) {
      if (typeof value === 'string') headers.set(name, value)
    }
    throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers, message: text.slice(0, 200), statusCode })
  }
  // HTML from a proxy, a truncated body or an envelope of the wrong shape is the node's failure,
  // classified like an HTTP error (503 RPC_UNAVAILABLE), never passed on as a result.
  let envelope: unknown
  try {
    envelope = parseRpcJson(text)
  } catch {
    throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers: new Headers(), message: 'the RPC answered something that is not JSON', statusCode: 502 })
  }
  if (!isJsonRpcEnvelope(envelope)) {
    throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers: new Headers(), message: 'the RPC answered JSON that is not a JSON-RPC response', statusCode: 502 })
  }
  return envelope
}

/** The pool's own timers are a backstop; the deadline of each request decides. */
const BACKSTOP_MS = 1000

/**
 * A @solana/kit RPC client whose every request gives up after `timeoutMs`. Requests go through
 * one keep-alive undici pool for the node's origin rather than kit's fetch-based transport, and
 * the deadline is a plain timer aborting a controller: `AbortSignal.timeout` (and a
 * dispatcher looked up per request) cost about 60 µs of CPU per call, and a paid x402 call makes
 * three (docs/performance.md). Errors keep the shapes kit's transport raises, so callers
 * classify them the same way.
 */
export function createRpcClient (url: string, timeoutMs: number, role = 'payment') {
  const endpoint = new URL(url)
  const path = endpoint.pathname + endpoint.search
  const pool = new Pool(endpoint.origin, { headersTimeout: timeoutMs + BACKSTOP_MS, bodyTimeout: timeoutMs + BACKSTOP_MS })
  const send = (async ({ payload, signal }) => {
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(new DOMException('the RPC did not answer in time', 'TimeoutError')), timeoutMs)
    const abort = () => deadline.abort(signal?.reason)
    signal?.addEventListener('abort', abort, { once: true })
    try {
      if (signal?.aborted === true) abort()
      const response = await pool.request({ path, method: 'POST', headers: REQUEST_HEADERS, body: stringifyJsonWithBigInts(payload), signal: deadline.signal })
      return readEnvelope(response.statusCode, response.headers, await response.body.text())
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', abort)
    }
  }) as RpcTransport
  // Every call is reported (method, outcome, time) for metrics; publishing is skipped when nobody listens.
  const transport = (async (config) => {
    const startedAt = performance.now()
    const method = String((config.payload as { method?: unknown }).method)
    let outcome: RpcCallOutcome = 'ok'
    try {
      const envelope = await send(config) as { error?: unknown }
      if (envelope.error !== undefined && envelope.error !== null) outcome = 'rpc_error'
      return envelope
    } catch (error) {
      outcome = rpcFailureOutcome(error)
      throw error
    } finally {
      publishRpcCall({ role, method, outcome, durationMs: performance.now() - startedAt })
    }
  }) as RpcTransport
  return createSolanaRpcFromTransport(transport)
}

export type SolanaRpc = ReturnType<typeof createRpcClient>
