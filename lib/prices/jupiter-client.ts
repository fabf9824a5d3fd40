import { setTimeout as sleep } from 'node:timers/promises'
import { Pool } from 'undici'
import { AppError } from '../errors/app-error.js'
import { parseQuote, parseTokenRecord, type JupiterTokenRecord, type QuoteOutcome } from './jupiter-market-responses.js'
import { MalformedResponseError, parsePriceV3, parseTokenSearch, type TokenInfo, type UsdQuote } from './jupiter-responses.js'

export interface JupiterClientOptions {
  /** Origin, optionally with a path prefix: `https://lite-api.jup.ag`, `http://127.0.0.1:8787`. */
  baseUrl: string
  /** Sent as `x-api-key`, the header Jupiter reads; keyless hosts need none. */
  apiKey?: string
  /** Deadline of one attempt, headers and body included. */
  timeoutMs: number
  /** Pause before the retry when the upstream says nothing (jittered ±50%). */
  retryDelayMs?: number
  /** Longest Retry-After worth waiting for inside a request; a longer one fails at once and is passed on. */
  maxRetryWaitMs?: number
  connections?: number
}

const MAX_BODY_BYTES = 1024 * 1024
const DEFAULT_RETRY_AFTER_SECONDS = 1
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/** An attempt that may succeed if repeated: 429, 5xx, or a broken connection (status 0). */
interface RetryableFailure {
  status: number
  retryAfterMs: number | undefined
  cause: unknown
}

/** Retry-After is either delay-seconds or an HTTP date. */
export function parseRetryAfterMs (value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (text === undefined || text.trim() === '') return undefined
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

function upstreamError (cause: unknown): AppError {
  return new AppError('UPSTREAM_ERROR', 'The price source answered with an error; try again later.', { cause })
}

function finalFailure (failure: RetryableFailure): AppError {
  // Busy (429, 503) or not reachable at all (status 0: refused, reset): the source is unavailable,
  // not wrong, so the buyer is told when to come back.
  if (failure.status === 429 || failure.status === 503 || failure.status === 0) {
    const retryAfterSeconds = failure.retryAfterMs === undefined
      ? DEFAULT_RETRY_AFTER_SECONDS
      : Math.max(1, Math.ceil(failure.retryAfterMs / 1000))
    return new AppError('UPSTREAM_UNAVAILABLE', 'The price source is busy or unreachable; retry after the indicated delay.', {
      details: { retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
      cause: failure.cause
    })
  }
  return upstreamError(failure.cause)
}

/**
 * The HTTP client of Jupiter's price v3, token search v2 and swap v1 quote APIs: one keep-alive pool, a deadline
 * per attempt, and one retry of 429, 5xx and broken connections. Timeouts are not retried: a slow
 * upstream would only make the buyer wait twice as long. Every failure is an AppError
 * (502 UPSTREAM_ERROR, 503 UPSTREAM_UNAVAILABLE, 504 UPSTREAM_TIMEOUT).
 */
export function createJupiterClient (options: JupiterClientOptions) {
  const { timeoutMs, retryDelayMs = 250, maxRetryWaitMs = 1000 } = options
  const base = new URL(options.baseUrl)
  const pathPrefix = base.pathname.replace(/\/+$/, '')
  // undici's own timers are only a backstop; the per-attempt deadline below decides.
  const pool = new Pool(base.origin, {
    connections: options.connections ?? 16,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: timeoutMs + 1000,
    bodyTimeout: timeoutMs + 1000
  })
  const headers: Record<string, string> = { accept: 'application/json' }
  if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey

  /** `answered`: statuses besides 200 whose JSON body is an answer (the quote's 400 "no route"). */
  async function attempt (path: string, answered: readonly number[]): Promise<{ status: number, body: unknown } | RetryableFailure> {
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(), timeoutMs)
    try {
      const response = await pool.request({ path: pathPrefix + path, method: 'GET', headers, signal: deadline.signal })
      if (response.statusCode === 429 || response.statusCode >= 500) {
        await response.body.dump()
        return {
          status: response.statusCode,
          retryAfterMs: parseRetryAfterMs(response.headers['retry-after']),
          cause: new Error(`upstream answered ${response.statusCode} to ${path}`)
        }
      }
      if (response.statusCode !== 200 && !answered.includes(response.statusCode)) {
        await response.body.dump()
        throw upstreamError(new Error(`upstream answered ${response.statusCode} to ${path}`))
      }
      let size = 0
      const chunks: Buffer[] = []
      for await (const chunk of response.body) {
        size += chunk.length
        if (size > MAX_BODY_BYTES) {
          response.body.destroy()
          throw upstreamError(new Error(`upstream answer to ${path} exceeds ${MAX_BODY_BYTES} bytes`))
        }
        chunks.push(chunk)
      }
      try {
        return { status: response.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }
      } catch (error) {
        throw upstreamError(new MalformedResponseError(`upstream answer to ${path} is not JSON: ${(error as Error).message}`))
      }
    } catch (error) {
      if (error instanceof AppError) throw error
      if (deadline.signal.aborted || TIMEOUT_CODES.has((error as { code?: string }).code ?? '')) {
        throw new AppError('UPSTREAM_TIMEOUT', 'The price source did not answer in time; try again.', { cause: error })
      }
      return { status: 0, retryAfterMs: undefined, cause: error }
    } finally {
      clearTimeout(timer)
    }
  }

  async function getAnswer (path: string, answered: readonly number[] = []): Promise<{ status: number, body: unknown }> {
    const first = await attempt(path, answered)
    if ('body' in first) return first
    const waitMs = first.retryAfterMs ?? retryDelayMs * (0.5 + Math.random())
    if (waitMs > maxRetryWaitMs) throw finalFailure(first)
    await sleep(waitMs)
    const second = await attempt(path, answered)
    if ('body' in second) return second
    throw finalFailure(second)
  }

  const getJson = async (path: string): Promise<unknown> => (await getAnswer(path)).body

  function parsed<T> (parse: () => T): T {
    try {
      return parse()
    } catch (error) {
      if (error instanceof MalformedResponseError) throw upstreamError(error)
      throw error
    }
  }

  return {
    /** USD prices of up to 50 mints in one call; mints without a reliable price are absent. */
    async getUsdPrices (mints: readonly string[]): Promise<Map<string, UsdQuote>> {
      const body = await getJson(`/price/v3?ids=${mints.map(encodeURIComponent).join(',')}`)
      return parsed(() => parsePriceV3(body, mints))
    },

    /** Tokens matching a symbol, a name or a mint (at most 20 for a symbol or name). */
    async searchTokens (query: string): Promise<TokenInfo[]> {
      const body = await getJson(`/tokens/v2/search?query=${encodeURIComponent(query)}`)
      return parsed(() => parseTokenSearch(body))
    },

    /** The full token-API record of one mint (market data), or null when Jupiter does not list it. */
    async getTokenRecord (mint: string): Promise<JupiterTokenRecord | null> {
      const body = await getJson(`/tokens/v2/search?query=${encodeURIComponent(mint)}`)
      return parsed(() => parseTokenRecord(body, mint))
    },

    /** A swap API quote (ExactIn) of `amount` base units of inputMint into outputMint; no route is an answer, not an error. */
    async quoteExactIn (inputMint: string, outputMint: string, amount: bigint): Promise<QuoteOutcome> {
      const query = new URLSearchParams({ inputMint, outputMint, amount: amount.toString(), swapMode: 'ExactIn', slippageBps: '50' })
      const { status, body } = await getAnswer(`/swap/v1/quote?${query.toString()}`, [400])
      return parsed(() => parseQuote(status, body))
    },

    async close (): Promise<void> {
      await pool.close()
    }
  }
}

export type JupiterClient = ReturnType<typeof createJupiterClient>
