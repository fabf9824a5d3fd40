import t from 'tap'
import { PRICE_PATH, QUOTE_PATH, SEARCH_PATH, startPriceApi } from '@token-merchant/localnet/price-api'
import { createJupiterClient, parseRetryAfterMs, type JupiterClientOptions } from '../../../lib/prices/jupiter-client.js'

const SOL = 'So11111111111111111111111111111111111111112'
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

const api = await startPriceApi({ apiKey: 'test-key' })
t.teardown(() => api.stop())
t.beforeEach(() => {
  api.fail(null)
  api.resetCalls()
})

function client (t: { teardown: (fn: () => unknown) => void }, options: Partial<JupiterClientOptions> = {}) {
  const jupiter = createJupiterClient({ baseUrl: api.url, apiKey: 'test-key', timeoutMs: 1000, retryDelayMs: 5, ...options })
  t.teardown(() => jupiter.close())
  return jupiter
}

t.test('reads prices and search results, sending the key as x-api-key', async t => {
  const jupiter = client(t, { baseUrl: `${api.url}/` })
  const quotes = await jupiter.getUsdPrices([SOL, USDC])
  t.equal(quotes.get(SOL)?.usdPrice, 147.48)
  t.equal(quotes.get(USDC)?.usdPrice, 0.9999)
  const found = await jupiter.searchTokens('jup')
  t.equal(found[0].symbol, 'JUP')
  t.same(api.requests().map(r => [r.path, r.query, r.apiKey]), [
    [PRICE_PATH, { ids: `${SOL},${USDC}` }, 'test-key'],
    [SEARCH_PATH, { query: 'jup' }, 'test-key']
  ])
})

t.test('a refused key is an upstream error, not retried', async t => {
  const jupiter = client(t, { apiKey: undefined })
  await t.rejects(jupiter.getUsdPrices([SOL]), { statusCode: 502, code: 'UPSTREAM_ERROR' })
  t.equal(api.calls()[PRICE_PATH], 1)
  t.equal(api.requests()[0].apiKey, undefined, 'no key header without a key')
})

t.test('one 500 is retried once, then succeeds', async t => {
  api.fail({ mode: 'error', times: 1 })
  const quotes = await client(t).getUsdPrices([SOL])
  t.equal(quotes.get(SOL)?.usdPrice, 147.48)
  t.equal(api.calls()[PRICE_PATH], 2)
})

t.test('5xx twice: 502 UPSTREAM_ERROR after exactly one retry', async t => {
  api.fail({ mode: 'error', status: 502 })
  await t.rejects(client(t).searchTokens('SOL'), { statusCode: 502, code: 'UPSTREAM_ERROR' })
  t.equal(api.calls()[SEARCH_PATH], 2)
})

t.test('upstream 503 twice: 503 UPSTREAM_UNAVAILABLE', async t => {
  api.fail({ mode: 'error', status: 503 })
  await t.rejects(client(t).getUsdPrices([SOL]), { statusCode: 503, code: 'UPSTREAM_UNAVAILABLE', headers: { 'retry-after': '1' } })
  t.equal(api.calls()[PRICE_PATH], 2)
})

t.test('a 429 with a short Retry-After is waited for and retried', async t => {
  api.fail({ mode: 'rate-limit', retryAfterSeconds: 0, times: 1 })
  t.equal((await client(t).getUsdPrices([SOL])).size, 1)
  t.equal(api.calls()[PRICE_PATH], 2)
})

t.test('429 twice: 503 UPSTREAM_UNAVAILABLE with Retry-After', async t => {
  api.fail({ mode: 'rate-limit', retryAfterSeconds: 0 })
  await t.rejects(client(t).getUsdPrices([SOL]), {
    statusCode: 503, code: 'UPSTREAM_UNAVAILABLE', headers: { 'retry-after': '1' }, details: { retryAfterSeconds: 1 }
  })
  t.equal(api.calls()[PRICE_PATH], 2)
})

t.test('a Retry-After longer than worth waiting fails at once and is passed on', async t => {
  api.fail({ mode: 'rate-limit', retryAfterSeconds: 30 })
  const started = Date.now()
  await t.rejects(client(t).getUsdPrices([SOL]), { statusCode: 503, code: 'UPSTREAM_UNAVAILABLE', headers: { 'retry-after': '30' }, details: { retryAfterSeconds: 30 } })
  t.ok(Date.now() - started < 500)
  t.equal(api.calls()[PRICE_PATH], 1)
})

t.test('a slow answer: 504 UPSTREAM_TIMEOUT at the deadline, not retried', async t => {
  api.fail({ mode: 'slow', delayMs: 600 })
  const started = Date.now()
  await t.rejects(client(t, { timeoutMs: 150 }).getUsdPrices([SOL]), { statusCode: 504, code: 'UPSTREAM_TIMEOUT' })
  const elapsed = Date.now() - started
  t.ok(elapsed >= 140 && elapsed < 500, `gave up after ${elapsed} ms`)
  t.equal(api.calls()[PRICE_PATH], 1)
})

t.test('a slow answer within the deadline is fine', async t => {
  api.fail({ mode: 'slow', delayMs: 50 })
  t.equal((await client(t, { timeoutMs: 1000 }).getUsdPrices([SOL])).size, 1)
})

t.test('bodies that are not JSON, or of the wrong shape: 502, not retried', async t => {
  const jupiter = client(t)
  for (const mode of ['malformed', 'wrong-shape'] as const) {
    api.fail({ mode })
    await t.rejects(jupiter.getUsdPrices([SOL]), { statusCode: 502, code: 'UPSTREAM_ERROR' }, `price, ${mode}`)
    await t.rejects(jupiter.searchTokens('SOL'), { statusCode: 502, code: 'UPSTREAM_ERROR' }, `search, ${mode}`)
  }
  t.same(api.calls(), { [PRICE_PATH]: 2, [SEARCH_PATH]: 2, [QUOTE_PATH]: 0 })
})

t.test('nobody listening: 503 UPSTREAM_UNAVAILABLE with Retry-After, after one retry', async t => {
  const gone = await startPriceApi()
  await gone.stop()
  await t.rejects(client(t, { baseUrl: gone.url }).getUsdPrices([SOL]), { statusCode: 503, code: 'UPSTREAM_UNAVAILABLE', headers: { 'retry-after': String } })
})

t.test('client messages never carry upstream details', async t => {
  api.fail({ mode: 'error', status: 500 })
  const error = await client(t).getUsdPrices([SOL]).then(() => new Error('no error'), (e: Error) => e)
  t.notMatch(error.message, /127\.0\.0\.1|500|price\/v3/)
  t.match(String((error as Error & { cause: Error }).cause), /500/)
})

t.test('parseRetryAfterMs: seconds or an HTTP date', async t => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  t.equal(parseRetryAfterMs('7', now), 7000)
  t.equal(parseRetryAfterMs(['2'], now), 2000)
  t.equal(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:03 GMT', now), 3000)
  t.equal(parseRetryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now), 0)
  t.equal(parseRetryAfterMs('soon', now), undefined)
  t.equal(parseRetryAfterMs(undefined, now), undefined)
})
