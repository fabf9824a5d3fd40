import { readFileSync } from 'node:fs'
import t from 'tap'
import { DEFAULT_TOKENS, PRICE_PATH, QUOTE_PATH, RISK_TOKENS, SEARCH_PATH, startPriceApi } from '../price-api/index.js'

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
  t.same(shape(body[0].audit), shape(real.audit), 'audit as in the JUP sample (devMints included)')
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
  t.same(api.calls(), { [PRICE_PATH]: 2, [SEARCH_PATH]: 1, [QUOTE_PATH]: 0, '/elsewhere': 1 })
  t.same(api.requests()[2], { path: SEARCH_PATH, query: { query: 'x' }, apiKey: 'k' })
  api.resetCalls()
  t.same(api.calls(), { [PRICE_PATH]: 0, [SEARCH_PATH]: 0, [QUOTE_PATH]: 0 })
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

t.test('/swap/v1/quote answers in the format of Jupiter\'s OpenAPI example, priced by a constant-product pool', async t => {
  const { status, body } = await get(`${QUOTE_PATH}?inputMint=${JUP}&outputMint=${USDC}&amount=1000000000&swapMode=ExactIn&slippageBps=50`)
  t.equal(status, 200)
  const real = sample('jupiter-swap-v1-quote-openapi-example.json')
  t.same(Object.keys(body).sort(), Object.keys(real).sort())
  t.same(Object.keys(body.routePlan[0].swapInfo).sort(), Object.keys(real.routePlan[0].swapInfo).sort())
  t.same(typeof body.priceImpactPct, typeof real.priceImpactPct, 'priceImpactPct is a string, as Jupiter gives it')
  t.match(body, { inputMint: JUP, outputMint: USDC, inAmount: '1000000000', swapMode: 'ExactIn', slippageBps: 50, routePlan: [{ percent: 100 }] })
  // 1,000 JUP at $0.4056 = $405.6 into half of $2,992,387: impact 405.6 / (1,496,193.5 + 405.6).
  const impact = 405.6 / (2_992_387 / 2 + 405.6)
  t.ok(Math.abs(Number(body.priceImpactPct) - impact) < 1e-9)
  t.equal(body.outAmount, String(Math.floor(405.6 * (1 - impact) / 0.9999 * 1e6)))
})

t.test('quote refusals are Jupiter\'s 400 answers: no route, not tradable, bad request', async t => {
  const noRoute = RISK_TOKENS.find(token => token.symbol === 'NOROUTE')!
  api.addToken(noRoute)
  t.teardown(() => api.removeToken(noRoute.mint))
  const refused = await get(`${QUOTE_PATH}?inputMint=${noRoute.mint}&outputMint=${USDC}&amount=1000`)
  t.equal(refused.status, 400)
  t.same(refused.body, sample('jupiter-swap-v1-quote-no-route.json'))
  const unknown = await get(`${QUOTE_PATH}?inputMint=${OTHER}&outputMint=${USDC}&amount=1000`)
  t.match(unknown, { status: 400, body: { errorCode: 'TOKEN_NOT_TRADABLE' } })
  t.match(await get(`${QUOTE_PATH}?inputMint=${JUP}&outputMint=${USDC}&amount=0`), { status: 400, body: { errorCode: 'INVALID_REQUEST' } })
})

t.test('risk tokens carry the market facts each risk needs, in the token API format', async t => {
  const local = await startPriceApi({ tokens: [...DEFAULT_TOKENS, ...RISK_TOKENS] })
  t.teardown(() => local.stop())
  const answer = await (await fetch(`${local.url}${SEARCH_PATH}?query=${RISK_TOKENS.map(token => token.mint).join(',')}`)).json() as any[]
  const bySymbol = Object.fromEntries(answer.map(entry => [entry.symbol, entry]))
  t.equal(bySymbol.THIN.liquidity, 8_000)
  t.ok(Date.now() - Date.parse(bySymbol.FRESH.firstPool.createdAt) < 2 * 3_600_000, 'a pool opened an hour ago, whenever asked')
  t.match(bySymbol.SUS, { audit: { isSus: true }, organicScore: 8, organicScoreLabel: 'low', isVerified: false })
  t.notOk('isSus' in bySymbol.THIN.audit, 'absent unless set, as Jupiter leaves it out')
})
