import { createSolanaRpcFromTransport, SolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, type RpcTransport } from '@solana/kit'
import { stringifyJsonWithBigInts } from '@solana/rpc-spec-types'
import { request } from 'undici'
import { publishRpcCall, rpcFailureOutcome, type RpcCallOutcome } from '../metrics/events.js'
import { parseRpcJson } from './rpc-json.js'

/** A JSON-RPC 2.0 response: an object with a result or an error. */
function isJsonRpcEnvelope (value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ('result' in value || 'error' in value)
}

/**
 * A @solana/kit RPC client whose every request gives up after `timeoutMs`. Requests go through
 * undici's request API rather than kit's fetch-based transport: measured on one getTransaction,
 * it halves the client's CPU per call, which is most of what the payment gate adds to a paid
 * call. Errors keep the shapes kit's transport raises, so callers classify them the same way.
 */
export function createRpcClient (url: string, timeoutMs: number, role = 'payment') {
  const send = (async ({ payload, signal }) => {
    const timeout = AbortSignal.timeout(timeoutMs)
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
      body: stringifyJsonWithBigInts(payload),
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout])
    })
    const text = await response.body.text()
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const headers = new Headers()
      for (const [name, value] of Object.entries(response.headers)) {
        if (typeof value === 'string') headers.set(name, value)
      }
      throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers, message: text.slice(0, 200), statusCode: response.statusCode })
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
