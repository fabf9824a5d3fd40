import { getSolanaErrorFromJsonRpcError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, SolanaError } from '@solana/kit'
import { publishRpcCall, rpcFailureOutcome, type RpcCallOutcome } from '../metrics/events.js'

export interface RpcBatchClientOptions {
  url: string
  /** Time one HTTP request (a whole batch) may take. */
  timeoutMs: number
}

/** The node's answer was not a JSON-RPC answer to the requests sent (not JSON, responses missing, ...). */
export class RpcBatchAnswerError extends Error {
  constructor (message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'RpcBatchAnswerError'
  }
}

type JsonRpcResponse = Record<string, unknown>

const isResponse = (value: unknown): value is JsonRpcResponse => typeof value === 'object' && value !== null && !Array.isArray(value)
const hasError = (response: JsonRpcResponse) => response.error !== undefined && response.error !== null

/**
 * JSON-RPC 2.0 batches: many calls of one method in a single HTTP POST, which @solana/kit does not
 * offer. One request per call costs a round trip plus HTTP and client overhead on each; a batch
 * pays it once.
 *
 * Failures have the shapes kit's own transport gives them, so `isRpcUnavailable` recognises them
 * the same way: an HTTP error status (429 with its Retry-After, 5xx, ...) is a SolanaError
 * RPC__TRANSPORT_HTTP_ERROR carrying the response headers; an unreachable node is fetch's
 * TypeError; the timeout is a TimeoutError. A node that refuses a whole batch with one JSON-RPC
 * error (a batch larger than it accepts, say) throws that error as kit would for a single call.
 *
 * Results are parsed with JSON.parse: integers above 2^53 (u64 lamport balances) lose precision.
 * Read only fields that fit a double (slots, block times, indexes) from them, or use kit.
 */
export function createRpcBatchClient ({ url, timeoutMs }: RpcBatchClientOptions) {
  let nextId = 1

  async function post (body: unknown, abortSignal?: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(timeoutMs)
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
      signal: abortSignal === undefined ? timeout : AbortSignal.any([abortSignal, timeout])
    })
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined) // frees the connection; the body is not needed
      throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers: response.headers, message: response.statusText, statusCode: response.status })
    }
    const text = await response.text()
    try {
      return JSON.parse(text)
    } catch (error) {
      throw new RpcBatchAnswerError(`the RPC node answered HTTP ${response.status} with a body that is not JSON`, { cause: error })
    }
  }

  const settle = <T>(response: JsonRpcResponse): PromiseSettledResult<T> => hasError(response)
    ? { status: 'rejected', reason: getSolanaErrorFromJsonRpcError(response.error) }
    : { status: 'fulfilled', value: response.result as T }

  return {
    /**
     * Calls `method` once per entry of `paramsList` in one HTTP request, and settles each call on
     * its own: a call the node answers with a JSON-RPC error is rejected, the others keep their
     * results. Results come in the order of `paramsList`, whatever order the node answers in. One
     * call goes as a plain request, not a batch of one, for nodes that refuse batches. Throws when
     * the request as a whole fails.
     */
    async call<T> (method: string, paramsList: ReadonlyArray<readonly unknown[]>, abortSignal?: AbortSignal): Promise<Array<PromiseSettledResult<T>>> {
      if (paramsList.length === 0) return []
      const firstId = nextId
      nextId += paramsList.length
      const requests = paramsList.map((params, index) => ({ jsonrpc: '2.0', id: firstId + index, method, params }))
      const startedAt = performance.now()
      let outcome: RpcCallOutcome = 'ok'
      let answer: unknown
      try {
        answer = await post(requests.length === 1 ? requests[0] : requests, abortSignal)
      } catch (error) {
        outcome = error instanceof RpcBatchAnswerError ? 'bad_answer' : rpcFailureOutcome(error)
        throw error
      } finally {
        publishRpcCall({ role: 'registry', method, outcome, durationMs: performance.now() - startedAt })
      }

      if (requests.length === 1 && isResponse(answer) && answer.id === firstId) return [settle<T>(answer)]
      if (!Array.isArray(answer)) {
        if (isResponse(answer) && hasError(answer)) throw getSolanaErrorFromJsonRpcError(answer.error)
        throw new RpcBatchAnswerError(`the RPC node answered ${method} with no JSON-RPC response`)
      }
      const settled = new Array<PromiseSettledResult<T> | undefined>(requests.length).fill(undefined)
      for (const response of answer as unknown[]) {
        const index = isResponse(response) && typeof response.id === 'number' ? response.id - firstId : -1
        if (index >= 0 && index < requests.length) settled[index] ??= settle<T>(response as JsonRpcResponse)
      }
      const missing = settled.filter(result => result === undefined).length
      if (missing > 0) throw new RpcBatchAnswerError(`the RPC node's answer to a batch of ${requests.length} ${method} calls lacks ${missing} responses`)
      return settled as Array<PromiseSettledResult<T>>
    }
  }
}

export type RpcBatchClient = ReturnType<typeof createRpcBatchClient>
