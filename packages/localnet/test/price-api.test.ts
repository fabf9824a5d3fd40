import { readFileSync } from 'node:fs'
import t from 'tap'
import { DEFAULT_TOKENS, PRICE_PATH, SEARCH_PATH, startPriceApi } from '../price-api/index.js'

const SAMPLES = new URL('./fixtures/samples/token-data/', import.meta.url)
const sample = (name: string): any => JSON.parse(readFileSync(new URL(name, SAMPLES), 'utf8'))

const SOL = 'So11111111111111111111111111111111111111112'
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'
const OTHER = '9BsnSWDPfbusseZfnXyZ3un14CyPMZYvsKjWY3Y8Gbqn'

const api = await startPriceApi()
t.teardown(() => api.stop())
t.beforeEach(() => {
  api.fail(null)
  api.resetCalls()
})

async function get (path: string, init?: RequestInit) {
  const response = await fetch(api.url + path, init)
  const text = await response.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers: response.headers, text, body }
}

const shape = (value: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(value).map(([k, v]) => [k, Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v]))

t.test('/price/v3 answers in the format of the real example', async t => {
  const { status, body } = await get(`${PRICE_PATH}?ids=${SOL},${USDC},${OTHER}`)
  t.equal(status, 200)
  const real = sample('jupiter-price-v3-openapi-example.json')
  t.same(Object.keys(body), [SOL, USDC], 'an unknown mint is left out')
  t.same(shape(body[SOL]), shape(real[SOL]))
  t.same(body[SOL], { ...real[SOL], liquidity: 621_679_197 }, 'defaults reuse the real example values')
  t.equal(body[USDC].usdPrice, 0.9999)
})

t.test('/tokens/v2/search answers in the format of the real example', async t => {
  const { status, body } = await get(`${SEARCH_PATH}?query=JUP`)
  t.equal(status, 200)
  const real = sample('jupiter-tokens-v2-search-JUP.json')[0]
  const { twitter, website, dev, ...common } = real
  t.ok(twitter !== undefined && website !== undefined && dev !== undefined, 'the social fields are the only ones left out')
  t.same(shape(body[0]), shape(common))
  t.same(shape(body[0].audit), shape(sample('jupiter-tokens-v2-search-SOL.json')[0].audit), 'audit as in the SOL sample')
  t.match(body[0], { id: JUP, symbol: 'JUP', name: 'Jupiter', decimals: 6, isVerified: true, tags: ['community', 'strict', 'verified'] })
  t.same(Object.keys(body[0].stats24h), Object.keys(common.stats24h))
})

t.test('search: by symbol or name (any case), exact symbols first, then liquidity; by mints', async t => {
  api.addToken({ mint: OTHER, symbol: 'SOLX', name: 'Another sol', decimals: 9, usdPrice: 1, liquidity: 1e12 })
  t.teardown(() => api.removeToken(OTHER))
  const bySymbol = await get(`${SEARCH_PATH}?query=sol`)
  t.same(bySymbol.body.map((x: { symbol: string }) => x.symbol), ['SOL', 'SOLX', 'JitoSOL', 'mSOL'])
  const byName = await get(`${SEARCH_PATH}?query=dogwif`)
  t.same(byName.body.map((x: { symbol: string }) => x.symbol), ['WIF'])
  const byMints = await get(`${SEARCH_PATH}?query=${JUP},${SOL}`)
  t.same(byMints.body.map((x: { id: string }) => x.id), [JUP, SOL])
  t.same((await get(`${SEARCH_PATH}?query=nothing-like-it`)).body, [])
  t.equal((await get(`${SEARCH_PATH}?query=`)).status, 400)
})

t.test('the table can be changed: setPrice, addToken, removeToken', async t => {
  api.setPrice(JUP, null)
  t.same((await get(`${PRICE_PATH}?ids=${JUP}`)).body, {}, 'no reliable price: left out')
  const searched = await get(`${SEARCH_PATH}?query=${JUP}`)
  t.notOk('usdPrice' in searched.body[0], 'search still knows the token')
  api.setPrice(JUP, 0.5)
  const priced = await get(`${PRICE_PATH}?ids=${JUP}`)
  t.equal(priced.body[JUP].usdPrice, 0.5)
  t.ok(priced.body[JUP].blockId > sample('jupiter-price-v3-docs.json')[SOL].blockId, 'a new price has a new block')
  api.setPrice(JUP, DEFAULT_TOKENS.find(x => x.mint === JUP)?.usdPrice ?? null)
  t.throws(() => api.setPrice(OTHER, 1), /unknown mint/)
})

t.test('price: ids are required, at most 50', async t => {
  t.equal((await get(PRICE_PATH)).status, 400)
  t.equal((await get(`${PRICE_PATH}?ids=${Array(51).fill(SOL).join(',')}`)).status, 400)
})

t.test('calls are counted per path, failures included', async t => {
  await get(`${PRICE_PATH}?ids=${SOL}`)
  await get(`${PRICE_PATH}?ids=${USDC}`)
  await get(`${SEARCH_PATH}?query=x`, { headers: { 'x-api-key': 'k' } })
  await get('/elsewhere')
  t.same(api.calls(), { [PRICE_PATH]: 2, [SEARCH_PATH]: 1, '/elsewhere': 1 })
  t.same(api.requests()[2], { path: SEARCH_PATH, query: { query: 'x' }, apiKey: 'k' })
  api.resetCalls()
  t.same(api.calls(), { [PRICE_PATH]: 0, [SEARCH_PATH]: 0 })
  t.same(api.requests(), [])
})

t.test('failure: 500 (or another status), for the next N calls or until cleared', async t => {
  api.fail({ mode: 'error', times: 2 })
  t.equal((await get(`${PRICE_PATH}?ids=${SOL}`)).status, 500)
  t.equal((await get(`${SEARCH_PATH}?query=SOL`)).status, 500)
  t.equal((await get(`${PRICE_PATH}?ids=${SOL}`)).status, 200)
  api.fail({ mode: 'error', status: 502 })
  t.equal((await get(`${PRICE_PATH}?ids=${SOL}`)).status, 502)
  t.equal((await get(`${PRICE_PATH}?ids=${SOL}`)).status, 502)
})

t.test('failure: only on one path', async t => {
  api.fail({ mode: 'error', path: SEARCH_PATH })
  t.equal((await get(`${PRICE_PATH}?ids=${SOL}`)).status, 200)
  t.equal((await get(`${SEARCH_PATH}?query=SOL`)).status, 500)
})

t.test('failure: 429 with Retry-After', async t => {
  api.fail({ mode: 'rate-limit', retryAfterSeconds: 7 })
  const answer = await get(`${PRICE_PATH}?ids=${SOL}`)
  t.equal(answer.status, 429)
  t.equal(answer.headers.get('retry-after'), '7')
})

t.test('failure: a slow answer, then the normal one', async t => {
  api.fail({ mode: 'slow', delayMs: 120 })
  const started = Date.now()
  const answer = await get(`${PRICE_PATH}?ids=${SOL}`)
  t.ok(Date.now() - started >= 110)
  t.equal(answer.body[SOL].usdPrice, 147.48)
})

t.test('failure: a malformed body, or JSON of the wrong shape', async t => {
  api.fail({ mode: 'malformed' })
  const cut = await get(`${PRICE_PATH}?ids=${SOL}`)
  t.equal(cut.status, 200)
  t.equal(cut.body, undefined, 'not JSON')
  t.ok(cut.text.startsWith('{"So111'))
  api.fail({ mode: 'wrong-shape' })
  t.same((await get(`${PRICE_PATH}?ids=${SOL}`)).body, [])
  t.same((await get(`${SEARCH_PATH}?query=SOL`)).body, { data: [] })
})

t.test('unknown paths and methods', async t => {
  t.equal((await get('/price/v2?ids=x')).status, 404)
  t.equal((await get(`${PRICE_PATH}?ids=${SOL}`, { method: 'POST' })).status, 405)
})

t.test('an API key, when configured, is required like Jupiter does', async t => {
  const keyed = await startPriceApi({ apiKey: 'k1', tokens: [] })
  t.teardown(() => keyed.stop())
  t.equal((await fetch(`${keyed.url}${PRICE_PATH}?ids=${SOL}`)).status, 401)
  const ok = await fetch(`${keyed.url}${PRICE_PATH}?ids=${SOL}`, { headers: { 'x-api-key': 'k1' } })
  t.equal(ok.status, 200)
  t.same(await ok.json(), {}, 'an empty table')
})

t.test('stop() does not wait for pending slow answers', async t => {
  const lagging = await startPriceApi({ port: 0 })
  lagging.fail({ mode: 'slow', delayMs: 10_000 })
  const pending = fetch(`${lagging.url}${PRICE_PATH}?ids=${SOL}`).catch((error: Error) => error)
  await new Promise(resolve => setTimeout(resolve, 50))
  const started = Date.now()
  await lagging.stop()
  t.ok(Date.now() - started < 1000)
  t.ok(await pending instanceof Error, 'the pending request is cut')
})
