import { BuyerError } from './errors.js'

export interface HttpOptions {
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch
  /** Deadline of one request, body included (default 30 s). */
  timeoutMs?: number
}

export interface HttpAnswer {
  status: number
  headers: Headers
  /** The parsed JSON body; undefined when the body is not JSON. */
  body: unknown
}

const DEFAULT_TIMEOUT_MS = 30_000

function reasonOf (error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown }).name
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`
  const cause = (error as { cause?: { code?: unknown, message?: unknown } }).cause
  if (typeof cause?.code === 'string') return cause.code
  if (typeof cause?.message === 'string') return cause.message
  return (error as Error).message
}

/** One GET; a connection failure or timeout is HTTP_UNREACHABLE, any HTTP answer is returned. */
export async function httpGet (url: string, options: HttpOptions & { headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const fetchImpl = options.fetch ?? globalThis.fetch
  try {
    const response = await fetchImpl(url, {
      headers: { accept: 'application/json', ...options.headers },
      signal: AbortSignal.timeout(timeoutMs)
    })
    const text = await response.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: response.status, headers: response.headers, body }
  } catch (error) {
    throw new BuyerError('HTTP_UNREACHABLE', `cannot reach ${url} (${reasonOf(error, timeoutMs)})`, {}, { cause: error })
  }
}

/** The `code` and `message` of an error body in the service's shape, when present. */
export function serverError (body: unknown): { code?: string, message?: string } {
  if (typeof body !== 'object' || body === null) return {}
  const { code, message } = body as { code?: unknown, message?: unknown }
  return { code: typeof code === 'string' ? code : undefined, message: typeof message === 'string' ? message : undefined }
}

/** A 2xx JSON body, or REQUEST_FAILED / UNEXPECTED_RESPONSE saying what came back instead. */
export async function getJson (url: string, options: HttpOptions = {}): Promise<unknown> {
  const answer = await httpGet(url, options)
  if (answer.status < 200 || answer.status >= 300) {
    const { code, message } = serverError(answer.body)
    throw new BuyerError('REQUEST_FAILED', `${url} answered ${answer.status}${code === undefined ? '' : ` ${code}`}${message === undefined ? '' : `: ${message}`}`, {
      status: answer.status,
      serverCode: code
    })
  }
  if (answer.body === undefined) throw new BuyerError('UNEXPECTED_RESPONSE', `${url} did not answer JSON`, { status: answer.status })
  return answer.body
}

/** An absolute http(s) URL, or INVALID_INPUT. */
export function parseHttpUrl (url: string): URL {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new BuyerError('INVALID_INPUT', `${url} is not an absolute URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new BuyerError('INVALID_INPUT', `${url} is not an http(s) URL`)
  return parsed
}

/**
 * A bare origin (`http://host:port` or `.../`) means the service's own document at `path`;
 * any other URL is used as given.
 */
export function withDefaultPath (url: string, path: string): string {
  const parsed = parseHttpUrl(url)
  if (parsed.pathname === '/' && parsed.search === '') parsed.pathname = path
  return parsed.href
}
