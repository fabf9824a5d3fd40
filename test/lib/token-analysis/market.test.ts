import t from 'tap'
import { address, type Address } from '@solana/kit'
import { AuthorityType, getSetAuthorityInstruction } from '@solana-program/token-2022'
import { startLocalnet } from '@token-merchant/localnet'
import { QUOTE_PATH, RISK_TOKENS, SEARCH_PATH, startPriceApi, type PriceApiToken } from '@token-merchant/localnet/price-api'
import { createJupiterClient } from '../../../lib/prices/jupiter-client.js'
import { createTokenAnalyzer } from '../../../lib/token-analysis/analyze-token.js'
import { createMarketReader } from '../../../lib/token-analysis/market.js'
import type { TokenAnalysisBody } from '../../../schemas/token-analysis.js'

const net = await startLocalnet()
t.teardown(() => net.stop())
const api = await startPriceApi()
t.teardown(() => api.stop())
const client = createJupiterClient({ baseUrl: api.url, timeoutMs: 1000, maxRetryWaitMs: 0 })
t.teardown(() => client.close())
const market = createMarketReader({ client, baseUrl: api.url, network: 'localnet', ttlMs: 0 })
const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, market })
const onChainOnly = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0 })

const CHAIN_CODES = ['METADATA_MISSING']
const marketCodes = (analysis: TokenAnalysisBody) => analysis.risks.map(risk => risk.code).filter(code => !CHAIN_CODES.includes(code)).sort()
const check = (analysis: TokenAnalysisBody, name: string) => analysis.checks.find(entry => entry.check === name)

/** A mint on the local chain, everything revoked, 25 holders: nothing on chain but missing metadata. */
async function quietMint (): Promise<Address> {
  const mint = await net.createMint({ decimals: 6, freezeAuthority: null })
  for (let i = 0; i < 25; i++) await net.mintTo(mint, (await net.createWallet(0n)).address, 4_000_000n)
  await net.sendInstructions([getSetAuthorityInstruction(
    { owned: mint, owner: net.authority, authorityType: AuthorityType.MintTokens, newAuthority: null },
    { programAddress: address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') }
  )], [net.authority])
  return mint
}

/** A chain mint listed on the stand-in with the facts of `token` (one of RISK_TOKENS, or a deep market). */
async function listed (token: Omit<PriceApiToken, 'mint'>): Promise<Address> {
  const mint = await quietMint()
  api.addToken({ ...token, mint })
  return mint
}

const DEEP = { symbol: 'DEEP', name: 'Deep Coin', decimals: 6, usdPrice: 2, liquidity: 5_000_000, verified: true }
const deep = await listed(DEEP)

t.beforeEach(() => api.fail(null))

t.test('a deep, old, verified market: every field read, both sales routed, nothing found', async t => {
  const analysis = await analyzer.analyze(deep)
  t.same(marketCodes(analysis), [])
  t.match(analysis.market, {
    available: true,
    source: 'jupiter-tokens-v2',
    usd_price: 2,
    liquidity_usd: 5_000_000,
    holder_count: 100_000,
    mcap_usd: 2_000_000_000,
    fdv_usd: 2_000_000_000,
    organic_score: 95,
    organic_score_label: 'high',
    verified: true,
    tags: ['community', 'strict', 'verified'],
    first_pool_created_at: '2024-06-05T08:55:25.527Z',
    stats_24h: { volume_usd: 2_250_000, buy_volume_usd: 1_250_000, sell_volume_usd: 1_000_000, price_change_pct: 0, buys: 1200, sells: 1100, traders: 640 },
    audit: { top_holders_percentage: 12.5, dev_mints: 1, is_sus: null }
  })
  t.ok(Date.parse(analysis.market.read_at ?? '') > 0)
  t.equal(analysis.sell_check.available, true)
  t.same(analysis.sell_check.quotes.map(quote => [quote.usd_value, quote.in_amount, quote.route_found, quote.venues]), [
    [100, '50000000', true, ['Local CPMM']],
    [1000, '500000000', true, ['Local CPMM']]
  ], 'sized from the USD price: $100 is 50 tokens at $2')
  const [small, large] = analysis.sell_check.quotes
  t.ok(small.price_impact_pct !== null && large.price_impact_pct !== null && small.price_impact_pct < large.price_impact_pct && large.price_impact_pct < 0.1)
  t.ok(large.out_usd !== null && large.out_usd > 999 && large.out_usd < 1000, `out ${large.out_usd} USDC`)
  t.match(check(analysis, 'market'), { status: 'passed', source: 'jupiter', read_at: String, risks: [] })
  t.match(check(analysis, 'sell_quote'), { status: 'passed', source: 'jupiter', slot: Number, risks: [] })
  const chainOnly = await onChainOnly.analyze(deep)
  t.equal(analysis.risk_score, chainOnly.risk_score, 'a healthy market adds nothing')
  const calls = api.requests().filter(request => request.path === QUOTE_PATH).slice(-2)
  t.same(calls.map(call => ({ ...call.query, amount: undefined })), [0, 1].map(() => ({
    inputMint: deep, outputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', amount: undefined, swapMode: 'ExactIn', slippageBps: '50'
  })), 'ExactIn quotes into USDC')
})

t.test('each market risk, from the stand-in\'s risk tokens', async t => {
  const expected: Record<string, string[]> = {
    NOROUTE: ['NO_SELL_ROUTE', 'UNVERIFIED'],
    THIN: ['LOW_LIQUIDITY', 'SELL_IMPACT_HIGH', 'UNVERIFIED'],
    SHALLOW: ['SELL_IMPACT_HIGH'],
    FRESH: ['NEW_TOKEN', 'UNVERIFIED'],
    SUS: ['FLAGGED_BY_JUPITER', 'LOW_ORGANIC_SCORE', 'UNVERIFIED']
  }
  for (const { mint: _, ...token } of RISK_TOKENS) {
    const analysis = await analyzer.analyze(await listed(token))
    t.same(marketCodes(analysis), expected[token.symbol], token.symbol)
    const risky = analysis.risks.filter(risk => !CHAIN_CODES.includes(risk.code))
    t.equal(analysis.risk_score, (await onChainOnly.analyze(address(analysis.mint))).risk_score + risky.reduce((sum, risk) => sum + risk.weight, 0), `${token.symbol}: weights add up`)
    if (token.symbol === 'NOROUTE') {
      t.same(analysis.sell_check.quotes.map(quote => [quote.route_found, quote.out_amount, quote.price_impact_pct]), [[false, null, null], [false, null, null]])
      t.match(check(analysis, 'sell_quote'), { status: 'flagged', risks: ['NO_SELL_ROUTE'] })
    }
    if (token.symbol === 'SHALLOW') {
      // Half of $30,000 on the USDC side: $1,000 loses 1000 / 16000 = 6.25%.
      t.equal(analysis.sell_check.quotes[1].price_impact_pct, 6.25)
      t.match(analysis.risks.find(risk => risk.code === 'SELL_IMPACT_HIGH')?.message, /6\.25%.* about \$63\./)
    }
    if (token.symbol === 'SUS') t.match(analysis.market.audit, { is_sus: true })
    if (token.symbol === 'FRESH') t.match(analysis.risks.find(risk => risk.code === 'NEW_TOKEN')?.message, /created (59 minutes|1 hour) ago/)
  }
})

t.test('a mint Jupiter does not list: market unavailable and weighed as unknown; no quote asked', async t => {
  const mint = await quietMint()
  api.resetCalls()
  const analysis = await analyzer.analyze(mint)
  t.same(marketCodes(analysis), ['MARKET_UNAVAILABLE'])
  t.match(analysis.market, { available: false, reason: /does not list this mint/, source: 'jupiter-tokens-v2' })
  t.match(analysis.sell_check, { available: false, reason: /no USD price/, quotes: [] })
  t.match(check(analysis, 'market'), { status: 'unavailable', reason: /does not list/, risks: ['MARKET_UNAVAILABLE'] })
  t.match(check(analysis, 'sell_quote'), { status: 'unavailable', risks: [] })
  t.equal(api.calls()[QUOTE_PATH], 0)
})

t.test('a failing or slow token API never fails the analysis: the chain part is delivered, the checks say what is missing', async t => {
  const chainOnly = await onChainOnly.analyze(deep)
  for (const failure of [{ mode: 'error' as const, status: 500 }, { mode: 'rate-limit' as const }, { mode: 'slow' as const, delayMs: 1500 }, { mode: 'malformed' as const }, { mode: 'wrong-shape' as const }]) {
    api.fail({ ...failure, path: SEARCH_PATH })
    const analysis = await analyzer.analyze(deep)
    t.same(marketCodes(analysis), ['MARKET_UNAVAILABLE'], failure.mode)
    t.match(analysis.market, { available: false, reason: /^Market data is unavailable: Jupiter's token API (did not answer in time|was busy or unreachable|answered with an error)\.$/ })
    t.match(check(analysis, 'market'), { status: 'unavailable', source: 'jupiter', risks: ['MARKET_UNAVAILABLE'] })
    t.match(check(analysis, 'sell_quote'), { status: 'unavailable' })
    t.equal(analysis.risk_score, chainOnly.risk_score + 10, `${failure.mode}: unknown weighs 10`)
    const { market: _m, sell_check: _s, checks: _c, risks: _r, risk_score: _score, summary: _summary, ...chainPart } = analysis
    const { market: _m2, sell_check: _s2, checks: _c2, risks: _r2, risk_score: _score2, summary: _summary2, ...expectedChain } = chainOnly
    t.same(chainPart, expectedChain, `${failure.mode}: the on-chain part is whole`)
  }
  api.fail({ mode: 'slow', delayMs: 1500, path: SEARCH_PATH })
  const analysis = await analyzer.analyze(deep)
  t.match(analysis.market.reason, /did not answer in time/)
  t.match(analysis.summary, /did not answer in time/, 'the summary names the unknown')
})

t.test('a failing quote API: market delivered, sell check unavailable and weighed as unknown', async t => {
  for (const failure of [{ mode: 'error' as const, status: 502 }, { mode: 'slow' as const, delayMs: 1500 }, { mode: 'wrong-shape' as const }]) {
    api.fail({ ...failure, path: QUOTE_PATH })
    const analysis = await analyzer.analyze(deep)
    t.equal(analysis.market.available, true, failure.mode)
    t.same(marketCodes(analysis), ['SELL_CHECK_UNAVAILABLE'], failure.mode)
    t.match(analysis.sell_check, { available: false, reason: /^The sell check is unavailable: Jupiter's quote API/, quotes: [] })
    t.match(check(analysis, 'sell_quote'), { status: 'unavailable', risks: ['SELL_CHECK_UNAVAILABLE'] })
    t.match(check(analysis, 'market'), { status: 'passed' })
  }
})

t.test('the market read starts with the chain reads, not after them', async t => {
  t.teardown(() => net.setLatency(0))
  net.setLatency(300)
  api.fail({ mode: 'slow', delayMs: 500, path: SEARCH_PATH })
  const started = Date.now()
  const analysis = await analyzer.analyze(deep)
  const elapsed = Date.now() - started
  t.equal(analysis.market.available, true)
  // Chain: two rounds of 300 ms; Jupiter: 500 ms of token record, then the quotes. In sequence
  // that is 1,100 ms and more; side by side about 600.
  t.ok(elapsed < 1000, `analysis took ${elapsed} ms`)
})

t.test('checks: one per check run, every finding in exactly one of them', async t => {
  const freezer = await net.createWallet(0n)
  const mint = await net.createMint({ decimals: 6, program: 'token-2022', freezeAuthority: freezer.address, extensions: { transferFee: { basisPoints: 300, maximumFee: 5n }, pausable: net.authority.address } })
  await net.mintTo(mint, (await net.createWallet(0n)).address, 1_000_000n)
  api.addToken({ ...RISK_TOKENS[0], mint })
  const analysis = await analyzer.analyze(mint)
  t.same(analysis.checks.map(entry => entry.check), [
    'mint_authority', 'freeze_authority', 'authority_holders', 'supply', 'extension:transfer_fee', 'extension:pausable', 'metadata', 'holders', 'issuer', 'market', 'sell_quote', 'transfer_simulation'
  ])
  const listedCodes = analysis.checks.flatMap(entry => entry.risks).sort()
  t.same(listedCodes, analysis.risks.map(risk => risk.code).sort(), 'each finding belongs to one check')
  for (const entry of analysis.checks) {
    t.equal(entry.status === 'flagged', entry.risks.length > 0 && !['unavailable'].includes(entry.status), `${entry.check}: flagged exactly when it has findings`)
    t.ok(entry.source === 'chain' ? typeof entry.slot === 'number' || entry.status === 'not_applicable' : entry.read_at !== undefined || entry.status !== 'passed', `${entry.check}: says when it was read`)
  }
  t.match(check(analysis, 'mint_authority'), { status: 'flagged', source: 'chain', slot: analysis.slot, risks: ['MINT_AUTHORITY_ACTIVE'] })
  t.match(check(analysis, 'extension:transfer_fee'), { status: 'flagged', risks: ['TRANSFER_FEE', 'TRANSFER_FEE_MUTABLE'] })
  t.match(check(analysis, 'holders'), { status: 'flagged', risks: ['LARGEST_HOLDER_MAJORITY', 'TOP10_CONCENTRATED', 'FEW_HOLDERS'] })
  t.match(check(analysis, 'issuer'), { status: 'passed', risks: [] })

  const spl = await onChainOnly.analyze(deep)
  t.match(check(spl, 'extensions'), { status: 'not_applicable', reason: 'SPL Token mints have no extensions.' })
  t.match(check(spl, 'market'), { status: 'not_applicable', source: 'jupiter' })
  t.match(spl.market, { available: false, reason: /no price API configured/ })
})

t.test('Jupiter lists mainnet-beta only: its own URL on another cluster is not asked', async t => {
  const jupiter = createJupiterClient({ baseUrl: 'https://lite-api.jup.ag', timeoutMs: 1000, maxRetryWaitMs: 0 })
  t.teardown(() => jupiter.close())
  const devnet = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, market: createMarketReader({ client: jupiter, baseUrl: 'https://lite-api.jup.ag', network: 'localnet', ttlMs: 0 }) })
  const analysis = await devnet.analyze(deep)
  t.match(analysis.market, { available: false, reason: /Jupiter \(https:\/\/lite-api\.jup\.ag\) lists mainnet-beta tokens only, and this analysis reads localnet/ })
  t.match(analysis.sell_check, { available: false, reason: /mainnet-beta tokens only/ })
  t.match(check(analysis, 'market'), { status: 'not_applicable' })
  t.match(check(analysis, 'sell_quote'), { status: 'not_applicable' })
  t.notOk(analysis.risks.some(risk => risk.code.startsWith('MARKET') || risk.code.startsWith('SELL')), 'nothing to weigh')
})
