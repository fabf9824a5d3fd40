import { address } from '@solana/kit'
import t from 'tap'
import { startLocalnet } from '@token-merchant/localnet'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'
import { build } from '../helper.js'

const MAINNET_USDC = address('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')

// Two local chains: payments on the first (SOLANA_RPC_URL), token data on the second
// (DATA_RPC_URL), as a devnet merchant selling mainnet data has.
t.test('payments on one chain buy token data read from the other', async (t) => {
  const paid = await startPaidChain(t)
  const dataChain = await startLocalnet()
  let dataChainStopped = false
  t.teardown(async () => { if (!dataChainStopped) await dataChain.stop() })
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())

  // USDC where mainnet has it, only on the data chain: the token fetch-price/USDC names.
  const dataMint = await dataChain.createMint({ address: MAINNET_USDC, decimals: 6 })
  const app = await build(t, {
    ...paid.env,
    DATA_NETWORK: 'localnet',
    DATA_RPC_URL: dataChain.url,
    PRICE_API_URL: priceApi.url,
    // Every analysis reads the chain again, so the stopped chain below is noticed.
    ANALYSIS_CACHE_TTL_MS: '0'
  })
  t.not(app.solana.data, undefined)
  t.not(app.solana.data.rpc, app.solana.rpc, 'two connections, one per role')
  const buyer = await paid.newBuyer(10_000_000n)
  const analyze = (mint: string, signature: string) =>
    app.inject({ url: `/api/analyze-token/${mint}`, headers: proofHeaders(signature, buyer.address) })

  t.match((await app.inject('/health/ready')).json(), { status: 'ok', checks: { database: 'up', rpc: 'up', data_rpc: 'up', fee_payer: /^(ok|low|unchecked)$/ } })
  const manifest = (await app.inject('/.well-known/agent.json')).json()
  t.equal(manifest.services.find((s: { name: string }) => s.name === 'analyze-token').data_network, 'localnet')

  t.test('a payment on the payment chain buys an analysis of a mint that exists only on the data chain', async (t) => {
    const signature = await paid.pay(buyer, 100_000n)
    const res = await analyze(dataMint, signature)
    t.equal(res.statusCode, 200)
    const body = res.json()
    t.equal(body.mint, MAINNET_USDC)
    t.equal(body.network, 'localnet')
    t.equal(body.supply, '0')
    t.equal(body.issuer?.asset, 'USDC', 'the issuer table of the data cluster')
    t.ok(res.headers['x-payment-response'], 'the payment was redeemed')
    t.equal((await app.store.claims.status(signature))?.status, 'redeemed')

    const price = await app.inject({ url: '/api/fetch-price/USDC', headers: proofHeaders(await paid.pay(buyer, 50_000n), buyer.address) })
    t.equal(price.statusCode, 200)
    t.equal(price.json().data.id, body.mint, 'fetch-price/USDC and the analysis describe the same token')
  })

  t.test('a mint that exists only on the payment chain is not found, and the proof is kept', async (t) => {
    const signature = await paid.pay(buyer, 100_000n)
    const missing = await analyze(paid.mint, signature)
    t.equal(missing.statusCode, 404)
    t.equal(missing.json().code, 'MINT_NOT_FOUND')
    t.not((await app.store.claims.status(signature))?.status, 'redeemed')
    const ok = await analyze(dataMint, signature)
    t.equal(ok.statusCode, 200, 'the same proof still buys an analysis')
  })

  t.test('the data chain stopped: 503 with Retry-After and the proof kept, while fetch-price still sells', async (t) => {
    await dataChain.stop()
    dataChainStopped = true
    const signature = await paid.pay(buyer, 100_000n)
    const down = await analyze(dataMint, signature)
    t.equal(down.statusCode, 503)
    t.equal(down.json().code, 'RPC_UNAVAILABLE')
    t.match(down.headers['retry-after'], /^\d+$/)
    t.not((await app.store.claims.status(signature))?.status, 'redeemed', 'the proof was not spent')

    const price = await app.inject({ url: '/api/fetch-price/SOL', headers: proofHeaders(signature, buyer.address) })
    t.equal(price.statusCode, 200, 'the kept proof buys a price: payments still work')
    t.equal(price.json().data.mintSymbol, 'SOL')
    t.equal((await app.store.claims.status(signature))?.status, 'redeemed')

    // Readiness reuses a check for a few seconds; a fresh one sees the data chain gone.
    t.equal(await app.solana.data.health.check(), 'down')
    const ready = await app.inject('/health/ready')
    t.equal(ready.statusCode, 200)
    t.match(ready.json(), { status: 'degraded', checks: { database: 'up', rpc: 'up', data_rpc: 'down', fee_payer: /^(ok|low|unchecked)$/ } })
  })
})

t.test('a data RPC of another cluster stops the start with a message that names the DATA_ variables', async (t) => {
  const paid = await startPaidChain(t)
  const other = await startLocalnet()
  t.teardown(() => other.stop())
  await t.rejects(build(t, { ...paid.env, DATA_NETWORK: 'mainnet-beta', DATA_RPC_URL: other.url }),
    /^DATA_RPC_URL serves a chain with genesis hash \w+, which is not mainnet-beta \(expected 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d\); fix DATA_NETWORK or DATA_RPC_URL$/)
})

t.test('an unreachable data RPC only degrades: the service starts, analyses answer 503 and keep the proof', async (t) => {
  const paid = await startPaidChain(t)
  const app = await build(t, { ...paid.env, DATA_NETWORK: 'mainnet-beta' })
  t.equal(app.solana.data.network, 'mainnet-beta')
  t.match((await app.inject('/health/ready')).json(), { status: 'degraded', checks: { database: 'up', rpc: 'up', data_rpc: 'down', fee_payer: /^(ok|low|unchecked)$/ } })
  const manifest = (await app.inject('/.well-known/agent.json')).json()
  t.same(manifest.services.map((s: { data_network: string }) => s.data_network), ['mainnet-beta', 'mainnet-beta'])
  t.equal(manifest.services[0].payment_network, 'solana-localnet')

  const buyer = await paid.newBuyer(1_000_000n)
  const signature = await paid.pay(buyer, 100_000n)
  const res = await app.inject({ url: `/api/analyze-token/${paid.mint}`, headers: proofHeaders(signature, buyer.address) })
  t.equal(res.statusCode, 503)
  t.equal(res.json().code, 'RPC_UNAVAILABLE')
  t.ok(res.headers['retry-after'])
  t.not((await app.store.claims.status(signature))?.status, 'redeemed')
})
