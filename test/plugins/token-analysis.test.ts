import t from 'tap'
import { startLocalnet } from '@token-merchant/localnet'
import { QUOTE_PATH, SEARCH_PATH, startPriceApi } from '@token-merchant/localnet/price-api'
import { build } from '../helper.js'

const net = await startLocalnet()
t.teardown(() => net.stop())
const mint = await net.createMint({ decimals: 6, freezeAuthority: null })

t.test('a malformed address is 400 VALIDATION_ERROR before any payment is asked', async t => {
  const app = await build(t, { SOLANA_RPC_URL: net.url })
  // 33 and 34 bytes of base58 that the schema pattern alone would let through, then plain garbage.
  for (const bad of ['1'.repeat(33), 'z'.repeat(44), 'not-a-mint', '0'.repeat(40)]) {
    const res = await app.inject(`/api/analyze-token/${bad}`)
    t.equal(res.statusCode, 400, bad)
    t.match(res.json(), { code: 'VALIDATION_ERROR', validation: [{ in: 'params', path: 'address' }] }, bad)
    t.notOk('accepts' in res.json(), 'no payment requirements')
  }
  net.resetStats()
  const unpaid = await app.inject(`/api/analyze-token/${mint}`)
  t.equal(unpaid.statusCode, 402, 'a well-formed address is asked to pay')
  t.match(unpaid.json(), { code: 'PAYMENT_REQUIRED', accepts: [{ maxAmountRequired: '100000' }] })
  t.notOk('getAccountInfo' in net.stats(), 'nothing is read before payment')
})

t.test('the plugin gives the app an analyzer over its Solana RPC client', async t => {
  const app = await build(t, { SOLANA_RPC_URL: net.url, ANALYSIS_CACHE_TTL_MS: '60000' })
  const analysis = await app.tokenAnalysis.analyze(mint)
  t.match(analysis, { mint, decimals: 6, supply: '0', authorities: { mint_authority_disabled: false } })
  t.equal(await app.tokenAnalysis.analyze(mint), analysis, 'reused within ANALYSIS_CACHE_TTL_MS')
})

t.test('market data comes from PRICE_API_URL; Jupiter\'s own URL is not asked for another cluster\'s tokens', async t => {
  const jupiter = await build(t, { SOLANA_RPC_URL: net.url, PRICE_API_URL: 'https://lite-api.jup.ag' })
  const onLocalnet = await jupiter.tokenAnalysis.analyze(mint)
  t.match(onLocalnet.market, { available: false, reason: /lists mainnet-beta tokens only, and this analysis reads localnet/ })
  t.match(onLocalnet.checks.find(entry => entry.check === 'market'), { status: 'not_applicable', source: 'jupiter' })
  t.notOk(onLocalnet.risks.some(risk => risk.code === 'MARKET_UNAVAILABLE'), 'not applicable is not unknown')

  const api = await startPriceApi()
  t.teardown(() => api.stop())
  api.addToken({ mint, symbol: 'LOC', name: 'Local Coin', decimals: 6, usdPrice: 1.5, liquidity: 2_000_000 })
  const standIn = await build(t, { SOLANA_RPC_URL: net.url, PRICE_API_URL: api.url })
  const analysis = await standIn.tokenAnalysis.analyze(mint)
  t.match(analysis.market, { available: true, usd_price: 1.5, liquidity_usd: 2_000_000 }, 'an explicit PRICE_API_URL is used on any cluster')
  t.equal(analysis.sell_check.quotes.length, 2)
  t.equal(api.calls()[SEARCH_PATH], 1, 'one token record per analysis')
  t.equal(api.calls()[QUOTE_PATH], 2, 'one quote per sale size')
})
