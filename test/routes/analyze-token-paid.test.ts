import t from 'tap'
import { build } from '../helper.js'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'
import { QUOTE_PATH, SEARCH_PATH, startPriceApi } from '@token-merchant/localnet/price-api'

t.test('a paid token analysis on the local chain, end to end', async (t) => {
  const paid = await startPaidChain(t)
  const app = await build(t, paid.env)
  const buyer = await paid.newBuyer(10_000_000n)

  const challenge = await app.inject(`/api/analyze-token/${paid.mint}`)
  t.equal(challenge.statusCode, 402)
  t.equal(challenge.json().accepts[0].maxAmountRequired, '100000')

  const signature = await paid.pay(buyer, 100_000n)
  const res = await app.inject({ url: `/api/analyze-token/${paid.mint}`, headers: proofHeaders(signature, buyer.address) })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.mint, paid.mint)
  t.same(body.authorities.mint_authority_disabled, false)
  t.ok(Number.isInteger(body.risk_score) && body.risk_score >= 1 && body.risk_score <= 100)
  t.equal(body.issuer?.name, 'Circle', 'the devnet USDC address is recognised as Circle')
  t.ok(res.headers['x-payment-response'])

  t.test('a missing mint or a non-mint account keeps the proof usable', async (t) => {
    const proof = await paid.pay(buyer, 100_000n)
    const empty = await app.inject({ url: '/api/analyze-token/11111111111111111111111111111112', headers: proofHeaders(proof, buyer.address) })
    t.equal(empty.statusCode, 404)
    t.equal(empty.json().code, 'MINT_NOT_FOUND')
    const wallet = await app.inject({ url: `/api/analyze-token/${buyer.address}`, headers: proofHeaders(proof, buyer.address) })
    t.equal(wallet.statusCode, 422)
    t.equal(wallet.json().code, 'NOT_A_TOKEN_MINT')
    const ok = await app.inject({ url: `/api/analyze-token/${paid.mint}`, headers: proofHeaders(proof, buyer.address) })
    t.equal(ok.statusCode, 200, 'the same proof still buys an analysis')
  })
})

t.test('a paid analysis with market data: can it be sold, into how much liquidity, what was checked', async (t) => {
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  priceApi.addToken({ mint: paid.mint, symbol: 'USDC', name: 'USD Coin (local)', decimals: 6, usdPrice: 1, liquidity: 4_000_000 })
  const app = await build(t, { ...paid.env, PRICE_API_URL: priceApi.url, ANALYSIS_CACHE_TTL_MS: '0', PRICE_CACHE_TTL_MS: '0', UPSTREAM_TIMEOUT_MS: '1000' })
  const buyer = await paid.newBuyer(10_000_000n)

  const signature = await paid.pay(buyer, 100_000n)
  const res = await app.inject({ url: `/api/analyze-token/${paid.mint}`, headers: proofHeaders(signature, buyer.address) })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body.market, { available: true, liquidity_usd: 4_000_000, verified: true, organic_score_label: 'high' })
  t.match(body.sell_check, { available: true, quotes: [{ usd_value: 100, route_found: true }, { usd_value: 1000, route_found: true }] })
  t.match(body.transfer_simulation, { available: true, succeeded: true, fee_charged: '0' }, 'a buyer\'s account can move the token')
  t.same(body.checks.map((entry: { check: string }) => entry.check), ['mint_authority', 'freeze_authority', 'authority_holders', 'supply', 'extensions', 'metadata', 'holders', 'issuer', 'market', 'sell_quote', 'transfer_simulation', 'launch', 'holder_clusters', 'creator', 'liquidity'])
  t.ok(res.headers['x-payment-response'])

  for (const failure of [{ mode: 'error' as const, status: 500 }, { mode: 'slow' as const, delayMs: 1500 }]) {
    t.test(`token API ${failure.mode}: the paid call is still delivered, and says what is missing`, async (t) => {
      priceApi.fail({ ...failure, path: SEARCH_PATH })
      t.teardown(() => priceApi.fail(null))
      const proof = await paid.pay(buyer, 100_000n)
      const delivered = await app.inject({ url: `/api/analyze-token/${paid.mint}`, headers: proofHeaders(proof, buyer.address) })
      t.equal(delivered.statusCode, 200)
      t.ok(delivered.headers['x-payment-response'], 'paid for, with its receipt')
      const analysis = delivered.json()
      t.match(analysis.market, { available: false, reason: /^Market data is unavailable: Jupiter's token API (answered with an error|did not answer in time)\.$/ })
      t.match(analysis.checks.find((entry: { check: string }) => entry.check === 'market'), { status: 'unavailable', risks: ['MARKET_UNAVAILABLE'] })
      t.equal(analysis.mint, paid.mint, 'the on-chain part is delivered')
      t.not((await app.store.claims.status(proof))?.status, undefined, 'the proof is redeemed: the buyer got the analysis')
    })
  }

  t.test('quote API down: market delivered, sell check unavailable', async (t) => {
    priceApi.fail({ mode: 'error', status: 503, path: QUOTE_PATH })
    t.teardown(() => priceApi.fail(null))
    const proof = await paid.pay(buyer, 100_000n)
    const delivered = await app.inject({ url: `/api/analyze-token/${paid.mint}`, headers: proofHeaders(proof, buyer.address) })
    t.equal(delivered.statusCode, 200)
    t.match(delivered.json().sell_check, { available: false, reason: /Jupiter's quote API was busy or unreachable/ })
    t.ok(delivered.json().risks.some((risk: { code: string }) => risk.code === 'SELL_CHECK_UNAVAILABLE'))
  })
})
