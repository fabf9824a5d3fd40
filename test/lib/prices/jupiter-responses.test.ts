import { readFileSync } from 'node:fs'
import t from 'tap'
import { MalformedResponseError, parsePriceV3, parseTokenSearch } from '../../../lib/prices/jupiter-responses.js'

// Real Jupiter answers, copied into the repository with their source (test/fixtures/samples/token-data).
const SAMPLES = new URL('../../fixtures/samples/token-data/', import.meta.url)
const sample = (name: string): unknown => JSON.parse(readFileSync(new URL(name, SAMPLES), 'utf8'))

const SOL = 'So11111111111111111111111111111111111111112'
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'

t.test('price v3: the docs sample', async t => {
  const quotes = parsePriceV3(sample('jupiter-price-v3-docs.json'), [SOL, JUP])
  t.same(quotes.get(SOL), { usdPrice: 147.4789340738336, blockId: 348004023, priceChange24h: 1.2907622140620008 })
  t.same(quotes.get(JUP), { usdPrice: 0.4056018512541055, blockId: 348004026, priceChange24h: 0.5292887924920519 })
})

t.test('price v3: the OpenAPI example, and a requested mint the answer leaves out', async t => {
  const quotes = parsePriceV3(sample('jupiter-price-v3-openapi-example.json'), [SOL, USDC, JUP])
  t.equal(quotes.get(SOL)?.usdPrice, 147.48)
  t.same(quotes.get(USDC), { usdPrice: 0.9999, blockId: 348004025, priceChange24h: -0.003 })
  t.notOk(quotes.has(JUP), 'absent from the answer: no reliable price')
  t.equal(parsePriceV3(sample('jupiter-price-v3-openapi-example.json'), [SOL]).size, 1, 'entries nobody asked for are ignored')
})

t.test('price v3: the answers of older versions are refused, not read as "no price"', async t => {
  for (const name of ['jupiter-price-v2-usd-default.json', 'jupiter-price-v4-sol.json', 'jupiter-price-v6-sol.json']) {
    t.throws(() => parsePriceV3(sample(name), [SOL]), MalformedResponseError, name)
  }
})

t.test('price v3: defensive reading', async t => {
  for (const body of [null, [], 'text', 42]) t.throws(() => parsePriceV3(body, [SOL]), MalformedResponseError)
  t.throws(() => parsePriceV3({ [SOL]: { usdPrice: '147.48' } }, [SOL]), MalformedResponseError, 'price as a string')
  t.throws(() => parsePriceV3({ [SOL]: { price: 147.48 } }, [SOL]), MalformedResponseError, 'no usdPrice field')
  t.equal(parsePriceV3({ [SOL]: null }, [SOL]).size, 0, 'null entry: no price')
  t.equal(parsePriceV3({ [SOL]: { usdPrice: null } }, [SOL]).size, 0, 'null usdPrice: no price')
  t.equal(parsePriceV3({ [SOL]: { usdPrice: 0 } }, [SOL]).size, 0, 'zero: no price')
  t.same(parsePriceV3({ [SOL]: { usdPrice: 2, blockId: 'x', priceChange24h: null } }, [SOL]).get(SOL),
    { usdPrice: 2, blockId: null, priceChange24h: null }, 'optional fields of the wrong type read as absent')
})

t.test('token search v2: the real samples', async t => {
  t.same(parseTokenSearch(sample('jupiter-tokens-v2-search-JUP.json')), [
    { mint: JUP, symbol: 'JUP', name: 'Jupiter', decimals: 6, verified: true, liquidity: 2992387.89 }
  ])
  t.same(parseTokenSearch(sample('jupiter-tokens-v2-search-SOL.json')), [
    { mint: SOL, symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, verified: true, liquidity: 89970631.83880953 }
  ])
})

t.test('token search v2: defensive reading', async t => {
  for (const body of [null, {}, { data: [] }, 'text']) t.throws(() => parseTokenSearch(body), MalformedResponseError)
  t.same(parseTokenSearch([]), [])
  const tokens = parseTokenSearch([
    { id: 'not-an-address', symbol: 'BAD' },
    { id: SOL },
    'junk',
    { id: JUP, symbol: 'JUP', tags: ['verified'], liquidity: 'lots' },
    { id: USDC, symbol: 'USDC', isVerified: false, tags: [] }
  ])
  t.same(tokens, [
    { mint: JUP, symbol: 'JUP', name: '', decimals: null, verified: true, liquidity: null },
    { mint: USDC, symbol: 'USDC', name: '', decimals: null, verified: false, liquidity: null }
  ], 'bad records skipped, a verified tag counts, wrong types read as absent')
})
