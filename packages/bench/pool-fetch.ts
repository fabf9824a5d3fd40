import { Readable } from 'node:stream'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { Pool } from 'undici'

const EVENT_STREAM = 'text/event-stream'
/** Statuses whose Response may carry no body at all. */
const NULL_BODY = new Set([101, 103, 204, 205, 304])

/**
 * A fetch for the MCP SDK's client over the same undici pool the bench's HTTP calls use, so an MCP
 * call and an HTTP call are timed through the same HTTP client: with Node's global fetch the
 * client's own CPU was about 1 ms per call more than the HTTP side's (Request, Headers and web
 * stream objects per call), which the MCP/HTTP ratio then counted as the merchant's. A JSON answer
 * is read whole; an event stream stays a stream.
 */
export function poolFetch (pool: Pool): FetchLike {
  return async (url, init) => {
    const target = new URL(url)
    const answer = await pool.request({
      path: target.pathname + target.search,
      method: (init?.method ?? 'GET') as 'GET',
      headers: Object.fromEntries(new Headers(init?.headers)),
      body: init?.body as string | undefined,
      signal: init?.signal ?? undefined
    })
    const headers = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const each of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, each)
    }
    const streaming = headers.get('content-type')?.startsWith(EVENT_STREAM) === true
    const body = NULL_BODY.has(answer.statusCode)
      ? null
      : streaming ? Readable.toWeb(answer.body) as ReadableStream : await answer.body.text()
    if (body === null) await answer.body.dump()
    return new Response(body, { status: answer.statusCode, headers })
  }
}
