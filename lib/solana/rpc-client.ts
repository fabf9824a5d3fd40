import { createSolanaRpcFromTransport, SolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, type RpcTransport } from '@solana/kit'
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from '@solana/rpc-spec-types'
import { request } from 'undici'

/**
 * A @solana/kit RPC client whose every request gives up after `timeoutMs`. Requests go through
 * undici's request API rather than kit's fetch-based transport: measured on one getTransaction,
 * it halves the client's CPU per call, which is most of what the payment gate adds to a paid
 * call. Errors keep the shapes kit's transport raises, so callers classify them the same way.
 */
export function createRpcClient (url: string, timeoutMs: number) {
  const transport = (async ({ payload, signal }) => {
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
    return parseJsonWithBigInts(text)
  }) as RpcTransport
  return createSolanaRpcFromTransport(transport)
}

export type SolanaRpc = ReturnType<typeof createRpcClient>
