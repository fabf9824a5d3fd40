import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { build } from '../helper.js'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'

const SOL = 'So11111111111111111111111111111111111111112'
const USDC_MAINNET = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

t.test('paid price lookups on the local chain, end to end', async (t) => {
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  const app = await build(t, { ...paid.env, PRICE_API_URL: priceApi.url, PRICE_CACHE_TTL_MS: '0' })
  const buyer = await paid.newBuyer(10_000_000n)

  t.test('unknown symbols are answered before any payment talk', async (t) => {
    const res = await app.inject('/api/fetch-price/NOSUCHTOKEN')
    t.equal(res.statusCode, 404)
    t.equal(res.json().code, 'TOKEN_NOT_FOUND')
    t.notOk('accepts' in res.json())
  })

  t.test('402, pay, repeat with the proof: the price in USDC', async (t) => {
    const challenge = await app.inject('/api/fetch-price/$sol')
    t.equal(challenge.statusCode, 402)
    t.equal(challenge.json().accepts[0].maxAmountRequired, '50000')
    const signature = await paid.pay(buyer, BigInt(challenge.json().accepts[0].maxAmountRequired))
    const res = await app.inject({ url: '/api/fetch-price/$sol', headers: proofHeaders(signature, buyer.address) })
    t.equal(res.statusCode, 200)
    t.match(res.json().data, { id: SOL, mintSymbol: 'SOL', vsToken: USDC_MAINNET, vsTokenSymbol: 'USDC', price: Number })
    t.ok(res.headers['x-payment-response'])
  })

  for (const [failure, status, code] of [
    [{ mode: 'error', status: 500 }, 502, 'UPSTREAM_ERROR'],
    [{ mode: 'rate-limit', retryAfterSeconds: 5 }, 503, 'UPSTREAM_UNAVAILABLE'],
    [{ mode: 'malformed' }, 502, 'UPSTREAM_ERROR']
  ] as const) {
    t.test(`upstream ${failure.mode}: ${status} ${code}, then the same proof buys the price`, async (t) => {
      const signature = await paid.pay(buyer, 50_000n)
      priceApi.fail({ ...failure, path: '/price/v3' })
      const failed = await app.inject({ url: '/api/fetch-price/JUP', headers: proofHeaders(signature, buyer.address) })
      priceApi.fail(null)
      t.equal(failed.statusCode, status)
      t.equal(failed.json().code, code)
      t.equal((await app.store.claims.status(signature))?.status, undefined, 'proof left unredeemed')
      const retry = await app.inject({ url: '/api/fetch-price/JUP', headers: proofHeaders(signature, buyer.address) })
      t.equal(retry.statusCode, 200)
      t.equal(retry.json().data.mintSymbol, 'JUP')
    })
  }

  t.test('a known token without a price: 404 PRICE_UNAVAILABLE after payment, proof kept', async (t) => {
    priceApi.setPrice(SOL, null)
    t.teardown(() => priceApi.setPrice(SOL, 150))
    const signature = await paid.pay(buyer, 50_000n)
    const res = await app.inject({ url: '/api/fetch-price/SOL', headers: proofHeaders(signature, buyer.address) })
    t.equal(res.statusCode, 404)
    t.equal(res.json().code, 'PRICE_UNAVAILABLE')
    t.equal((await app.store.claims.status(signature))?.status, undefined)
  })
})
