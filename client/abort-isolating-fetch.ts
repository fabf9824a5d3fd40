import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'

const EVENT_STREAM = 'text/event-stream'

/**
 * fetch giving each request an abort signal of its own that follows the caller's. The MCP SDK's
 * streamable HTTP client passes one connection-long signal to every request, and Node's fetch adds
 * an abort listener to it per request that only an abort or the garbage collector removes: a
 * long-running MCP bridge gathers thousands (MaxListenersExceededWarning after 1,500 tool calls).
 * Here the listener on the caller's signal goes as soon as the answer has come, unless the answer
 * is an event stream: a stream still has to end when the caller aborts (the transport closing).
 */
export function abortIsolatingFetch (base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const shared = init?.signal
    if (shared === undefined || shared === null) return await base(url, init)
    const own = new AbortController()
    const follow = () => own.abort(shared.reason)
    if (shared.aborted) follow()
    else shared.addEventListener('abort', follow, { once: true })
    let streaming = false
    try {
      const response = await base(url, { ...init, signal: own.signal })
      streaming = response.headers.get('content-type')?.toLowerCase().startsWith(EVENT_STREAM) === true
      return response
    } finally {
      if (!streaming) shared.removeEventListener('abort', follow)
    }
  }
}
