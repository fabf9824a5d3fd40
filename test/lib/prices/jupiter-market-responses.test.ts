import { readFileSync } from 'node:fs'
import t from 'tap'
import { parseQuote, parseTokenRecord } from '../../../lib/prices/jupiter-market-responses.js'
import { MalformedResponseError } from '../../../lib/prices/jupiter-responses.js'

const SAMPLES = new URL('../../fixtures/samples/token-data/', import.meta.url)
const sample = (name: string): any => JSON.parse(readFileSync(new URL(name, SAMPLES), 'utf8'))
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'

t.test('the real token record is read; an unlisted mint is null; a malformed record is refused', async t => {
  const record = parseTokenRecord(sample('jupiter-tokens-v2-search-JUP.json'), JUP)
  t.match(record, { id: JUP, liquidity: 2992387.89, holderCount: 857254, organicScoreLabel: 'high', isVerified: true, firstPool: { createdAt: '2024-01-29T17:33:29Z' }, audit: { devMints: 1 } })
  t.equal(parseTokenRecord(sample('jupiter-tokens-v2-search-JUP.json'), 'So11111111111111111111111111111111111111112'), null)
  t.equal(parseTokenRecord([], JUP), null)
  t.throws(() => parseTokenRecord({ data: [] }, JUP), MalformedResponseError)
  t.throws(() => parseTokenRecord([{ id: JUP, liquidity: '2992387' }], JUP), { message: /token record of JUP\w+ is malformed at \/liquidity/ })
  t.throws(() => parseTokenRecord([{ id: JUP, audit: { isSus: 'yes' } }], JUP), MalformedResponseError)
  t.match(parseTokenRecord([{ id: JUP, audit: null, stats24h: null, tags: null }], JUP), { id: JUP }, 'the spec\'s nullable fields may be null')
})

t.test('quotes: the OpenAPI example is a route; Jupiter\'s 400 no-route answer is an answer; anything else is refused', async t => {
  const example = sample('jupiter-swap-v1-quote-openapi-example.json')
  t.match(parseQuote(200, example), { routeFound: true, quote: { inAmount: '100000000', outAmount: '17057460', priceImpactPct: '0.0001', contextSlot: 324307186, routePlan: [{ swapInfo: { label: 'Meteora DLMM' } }] } })
  t.same(parseQuote(400, sample('jupiter-swap-v1-quote-no-route.json')), { routeFound: false, errorCode: 'COULD_NOT_FIND_ANY_ROUTE', error: 'Could not find any route' })
  t.match(parseQuote(400, { error: 'The token X is not tradable', errorCode: 'TOKEN_NOT_TRADABLE' }), { routeFound: false })
  t.throws(() => parseQuote(400, { error: 'amount is required', errorCode: 'INVALID_REQUEST' }), MalformedResponseError)
  t.throws(() => parseQuote(200, { ...example, outAmount: 17057460 }), { message: /malformed at \/outAmount/ })
  t.throws(() => parseQuote(200, { ...example, priceImpactPct: 'high' }), MalformedResponseError)
})
