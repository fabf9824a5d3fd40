import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { getAddressDecoder } from '@solana/kit'
import t from 'tap'
import { PRICE_PATH, QUOTE_PATH, SEARCH_PATH, startPriceApi, type PriceApiToken } from '@token-merchant/localnet/price-api'
import { createPriceService, type PriceServiceOptions } from '../../../lib/prices/price-service.js'

const SOL = 'So11111111111111111111111111111111111111112'
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'
const WIF = 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm'

const randomMint = (): string => getAddressDecoder().decode(randomBytes(32))
const extraToken = (symbol: string, extra: Partial<PriceApiToken> = {}): PriceApiToken =>
  ({ mint: randomMint(), symbol, name: `${symbol} token`, decimals: 6, usdPrice: 0.25, ...extra })

const api = await startPriceApi()
t.teardown(() => api.stop())
t.beforeEach(() => {
  api.fail(null)
  api.resetCalls()
})

function service (t: { teardown: (fn: () => unknown) => void }, options: Partial<PriceServiceOptions> = {}) {
  const prices = createPriceService({
    baseUrl: api.url, timeoutMs: 1000, priceTtlMs: 10_000, tokenTtlMs: 60_000, retryDelayMs: 5, ...options
  })
  t.teardown(() => prices.close())
  return prices
}

t.test('SOL in USDC by default: usdPrice(SOL) / usdPrice(USDC), both in one call', async t => {
  const record = await service(t).getPrice('SOL')
  t.match(record, {
    id: SOL,
    mintSymbol: 'SOL',
    vsToken: USDC,
    vsTokenSymbol: 'USDC',
    price: 147.48 / 0.9999,
    usdPrice: 147.48,
    priceChange24h: 1.29,
    blockId: Number,
    source: 'jupiter-price-v3'
  })
  t.ok(Math.abs(Date.parse(record.fetchedAt) - Date.now()) < 5000)
  t.same(api.requests().map(r => [r.path, r.query]), [[PRICE_PATH, { ids: [SOL, USDC].sort().join(',') }]],
    'built-in symbols cost no search')
})

t.test('symbol case, a leading $ and the mint all name one token', async t => {
  const prices = service(t)
  for (const input of ['WIF', 'wif', '$WIF', '$wif', WIF]) {
    t.match(await prices.getPrice(input), { id: WIF, mintSymbol: 'WIF', price: 0.87 / 0.9999 }, input)
  }
  t.equal(api.calls()[SEARCH_PATH], 0)
})

t.test('another quote token with vs, by symbol or mint', async t => {
  const prices = service(t)
  t.match(await prices.getPrice('JUP', 'sol'), { id: JUP, vsToken: SOL, vsTokenSymbol: 'SOL', price: 0.4056 / 147.48 })
  t.match(await prices.getPrice(JUP, SOL), { id: JUP, vsToken: SOL, price: 0.4056 / 147.48 })
  t.match(await prices.getPrice('SOL', 'SOL'), { id: SOL, vsToken: SOL, price: 1 })
  t.same(api.requests().map(r => r.query.ids), [[JUP, SOL].sort().join(','), SOL], 'the same pair shares its cache entry')
})

t.test('a symbol outside the built-in table: token search, then cached', async t => {
  const giga = extraToken('GIGA', { usdPrice: 0.05 })
  api.addToken(giga)
  api.addToken(extraToken('GIGACHAD', { liquidity: 9e9 }))
  const prices = service(t)
  t.same(await prices.resolveToken('giga'), { mint: giga.mint, symbol: 'GIGA' })
  t.match(await prices.getPrice('$Giga'), { id: giga.mint, mintSymbol: 'GIGA', price: 0.05 / 0.9999 })
  t.equal(api.calls()[SEARCH_PATH], 1)
})

t.test('a mint outside the built-in table: free to resolve, described once by search', async t => {
  const moon = extraToken('MOON', { usdPrice: 3 })
  api.addToken(moon)
  const prices = service(t)
  t.same(await prices.resolveToken(moon.mint), { mint: moon.mint, symbol: null })
  t.equal(api.calls()[SEARCH_PATH], 0, 'no upstream call before payment')
  t.match(await prices.getPrice(moon.mint), { id: moon.mint, mintSymbol: 'MOON', price: 3 / 0.9999 })
  t.match(await prices.getPrice('USDC', moon.mint), { id: USDC, vsToken: moon.mint, vsTokenSymbol: 'MOON', price: 0.9999 / 3 })
  t.equal(api.calls()[SEARCH_PATH], 1)
})

t.test('built-in symbols win over look-alikes the search would find', async t => {
  api.addToken(extraToken('JUP', { verified: true, liquidity: 1e12 }))
  t.match(await service(t).getPrice('jup'), { id: JUP })
  t.equal(api.calls()[SEARCH_PATH], 0)
})

t.test('verified first, then a clearly dominant liquidity', async t => {
  const real = extraToken('ZEUS', { verified: true, liquidity: 10 })
  api.addToken(real)
  api.addToken(extraToken('ZEUS', { verified: false, liquidity: 1e9 }))
  const deep = extraToken('KOBE', { verified: true, liquidity: 5e6 })
  api.addToken(deep)
  api.addToken(extraToken('KOBE', { verified: true, liquidity: 1e5 }))
  const prices = service(t)
  t.equal((await prices.resolveToken('zeus')).mint, real.mint)
  t.equal((await prices.resolveToken('KOBE')).mint, deep.mint)
})

t.test('an ambiguous symbol: 409 AMBIGUOUS_SYMBOL listing the candidates, no price call', async t => {
  const one = extraToken('PERP', { verified: true, liquidity: 2e6 })
  const two = extraToken('PERP', { verified: true, liquidity: 1e6 })
  api.addToken(one)
  api.addToken(two)
  api.addToken(extraToken('PERP', { verified: false, liquidity: 5e6 }))
  const prices = service(t)
  const expected = {
    statusCode: 409,
    code: 'AMBIGUOUS_SYMBOL',
    details: {
      token: 'perp',
      candidates: [
        { mint: one.mint, name: 'PERP token', verified: true, liquidity: 2e6 },
        { mint: two.mint, name: 'PERP token', verified: true, liquidity: 1e6 }
      ]
    }
  }
  await t.rejects(prices.resolveToken('perp'), expected)
  await t.rejects(prices.getPrice('perp'), expected)
  t.same(api.calls(), { [PRICE_PATH]: 0, [SEARCH_PATH]: 1, [QUOTE_PATH]: 0 }, 'the ambiguity is cached too')
  t.match(await prices.getPrice(two.mint), { id: two.mint, mintSymbol: 'PERP' }, 'the mint still works')
})

t.test('unknown symbols and mints: 404 TOKEN_NOT_FOUND; negative answers cached briefly', async t => {
  const prices = service(t, { negativeTtlMs: 50 })
  await t.rejects(prices.resolveToken('NOPE'), { statusCode: 404, code: 'TOKEN_NOT_FOUND', details: { token: 'NOPE' } })
  await t.rejects(prices.getPrice('$nope'), { statusCode: 404, code: 'TOKEN_NOT_FOUND' })
  t.equal(api.calls()[SEARCH_PATH], 1)
  await sleep(70)
  await t.rejects(prices.resolveToken('NOPE'), { statusCode: 404, code: 'TOKEN_NOT_FOUND' })
  t.equal(api.calls()[SEARCH_PATH], 2, 'asked again once the negative answer expired')

  const stranger = randomMint()
  await t.rejects(prices.getPrice(stranger), { statusCode: 404, code: 'TOKEN_NOT_FOUND', details: { token: stranger } })
  await t.rejects(prices.getPrice('SOL', stranger), { statusCode: 404, code: 'TOKEN_NOT_FOUND' })
  t.equal(api.calls()[SEARCH_PATH], 3)
  t.equal(api.calls()[PRICE_PATH], 0)
})

t.test('malformed input: 400 VALIDATION_ERROR without upstream calls', async t => {
  const prices = service(t)
  await t.rejects(prices.resolveToken('not a token!'), { statusCode: 400, code: 'VALIDATION_ERROR' })
  await t.rejects(prices.getPrice('SOL', 'z'.repeat(44)), { statusCode: 400, code: 'VALIDATION_ERROR', details: { token: 'z'.repeat(44) } })
  t.same(api.calls(), { [PRICE_PATH]: 0, [SEARCH_PATH]: 0, [QUOTE_PATH]: 0 })
})

t.test('a known token without a price: 404 PRICE_UNAVAILABLE, for the token or the quote', async t => {
  const dim = extraToken('DIM', { usdPrice: null })
  api.addToken(dim)
  const prices = service(t)
  await t.rejects(prices.getPrice(dim.mint), { statusCode: 404, code: 'PRICE_UNAVAILABLE', details: { mint: dim.mint } })
  await t.rejects(prices.getPrice('SOL', 'dim'), { statusCode: 404, code: 'PRICE_UNAVAILABLE', details: { mint: dim.mint } })
})

t.test('upstream failures map to 502, 503 (Retry-After) and 504, and are not cached', async t => {
  const prices = service(t, { timeoutMs: 150 })
  api.fail({ mode: 'error', status: 500 })
  await t.rejects(prices.getPrice('SOL'), { statusCode: 502, code: 'UPSTREAM_ERROR' })
  api.fail({ mode: 'rate-limit', retryAfterSeconds: 20 })
  await t.rejects(prices.getPrice('SOL'), { statusCode: 503, code: 'UPSTREAM_UNAVAILABLE', headers: { 'retry-after': '20' } })
  api.fail({ mode: 'slow', delayMs: 400 })
  await t.rejects(prices.getPrice('SOL'), { statusCode: 504, code: 'UPSTREAM_TIMEOUT' })
  api.fail({ mode: 'malformed' })
  await t.rejects(prices.getPrice('SOL'), { statusCode: 502, code: 'UPSTREAM_ERROR' })
  api.fail({ mode: 'error', path: SEARCH_PATH })
  await t.rejects(prices.resolveToken('GIGA2'), { statusCode: 502, code: 'UPSTREAM_ERROR' }, 'search failures too')
  api.fail(null)
  t.match(await prices.getPrice('SOL'), { id: SOL, price: 147.48 / 0.9999 }, 'works again at once')
})

t.test('one transient 5xx is absorbed by the retry', async t => {
  api.fail({ mode: 'error', times: 1 })
  t.match(await service(t).getPrice('SOL'), { id: SOL })
  t.equal(api.calls()[PRICE_PATH], 2)
})

t.test('prices are reused for PRICE_CACHE_TTL_MS', async t => {
  const prices = service(t, { priceTtlMs: 60 })
  const first = await prices.getPrice('SOL')
  api.setPrice(SOL, 150)
  const second = await prices.getPrice('SOL')
  t.equal(second.usdPrice, 147.48)
  t.equal(second.fetchedAt, first.fetchedAt)
  t.equal(api.calls()[PRICE_PATH], 1)
  await sleep(80)
  t.equal((await prices.getPrice('SOL')).usdPrice, 150)
  t.equal(api.calls()[PRICE_PATH], 2)
  api.setPrice(SOL, 147.48)
})

t.test('a price TTL of 0 asks every time', async t => {
  const prices = service(t, { priceTtlMs: 0 })
  await prices.getPrice('SOL')
  await prices.getPrice('SOL')
  t.equal(api.calls()[PRICE_PATH], 2)
})

t.test('concurrent lookups share one upstream call', async t => {
  const gem = extraToken('GEM')
  api.addToken(gem)
  api.fail({ mode: 'slow', delayMs: 50 })
  const prices = service(t)
  const records = await Promise.all(Array.from({ length: 10 }, (_, i) => prices.getPrice(i % 2 === 0 ? 'gem' : '$GEM')))
  t.ok(records.every(r => r.id === gem.mint && r.fetchedAt === records[0].fetchedAt))
  t.same(api.calls(), { [PRICE_PATH]: 1, [SEARCH_PATH]: 1, [QUOTE_PATH]: 0 })
})

t.test('caches are bounded', async t => {
  const prices = service(t, { cacheMaxEntries: 2 })
  for (const symbol of ['NOPEA', 'NOPEB', 'NOPEC', 'NOPEC', 'NOPEA']) {
    await t.rejects(prices.resolveToken(symbol), { code: 'TOKEN_NOT_FOUND' })
  }
  t.equal(api.calls()[SEARCH_PATH], 4, 'NOPEA was evicted by NOPEC')
})

t.test('tokens resolve against the data network: mainnet-beta and a local chain have a list, devnet and testnet none', async t => {
  for (const network of ['mainnet-beta', 'localnet'] as const) {
    t.equal((await service(t, { network }).getPrice('SOL')).id, SOL, network)
  }
  api.resetCalls()
  for (const network of ['devnet', 'testnet'] as const) {
    const prices = service(t, { network })
    for (const input of ['SOL', 'USDC', JUP]) {
      await t.rejects(prices.resolveToken(input), { statusCode: 404, code: 'TOKEN_NOT_FOUND', message: new RegExp(`on ${network}`) }, `${input} on ${network}`)
    }
    await t.rejects(prices.getPrice('SOL'), { code: 'TOKEN_NOT_FOUND' }, 'never a mainnet price sold as a devnet one')
  }
  t.same(api.requests(), [], 'and the aggregator is not asked')
})
