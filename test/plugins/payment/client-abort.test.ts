import { get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { PRICE_PATH, startPriceApi } from '@token-merchant/localnet/price-api'
import { proofHeaders, startPaidChain } from '../../fixtures/paid-chain.js'
import { build, sqliteOf } from '../../helper.js'

async function status (url: string, headers: Record<string, string>): Promise<number> {
  return await new Promise((resolve, reject) => {
    get(url, { headers }, response => {
      response.resume()
      response.on('end', () => resolve(response.statusCode ?? 0))
    }).on('error', reject)
  })
}

t.test('a buyer who leaves before the answer gets the proof back: the same proof buys the data afterwards', async (t) => {
  const paid = await startPaidChain(t)
  const prices = await startPriceApi()
  t.teardown(async () => await prices.stop())
  const app = await build(t, { ...paid.env, PRICE_API_URL: prices.url, UPSTREAM_TIMEOUT_MS: '10000' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/fetch-price/JUP`
  const db = sqliteOf(app)
  const claims = db.prepare('SELECT status FROM payment_claims WHERE signature = ?').pluck()

  const buyer = await paid.newBuyer()
  const signature = await paid.pay(buyer, 50_000n)
  prices.fail({ mode: 'slow', delayMs: 5000, path: PRICE_PATH })
  const request = get(url, { headers: proofHeaders(signature, buyer.address) })
  const gone = new Promise(resolve => request.on('error', resolve))
  while (prices.calls()[PRICE_PATH] === 0) await sleep(20)
  t.equal(claims.get(signature), 'pending', 'the handler runs on a claimed proof')

  request.destroy()
  await gone
  for (let waited = 0; claims.get(signature) !== undefined && waited < 5000; waited += 20) await sleep(20)
  t.equal(claims.get(signature), undefined, 'the claim was released when the buyer left')

  prices.fail(null)
  t.equal(await status(url, proofHeaders(signature, buyer.address)), 200, 'the same proof buys the price')
  t.equal(claims.get(signature), 'redeemed')
})

t.test('a request that ends normally keeps its redeemed claim (the close that follows is no abort)', async (t) => {
  const paid = await startPaidChain(t)
  const prices = await startPriceApi()
  t.teardown(async () => await prices.stop())
  const app = await build(t, { ...paid.env, PRICE_API_URL: prices.url })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/fetch-price/JUP`
  const buyer = await paid.newBuyer()
  const signature = await paid.pay(buyer, 50_000n)
  t.equal(await status(url, proofHeaders(signature, buyer.address)), 200)
  await sleep(50)
  t.equal(sqliteOf(app).prepare('SELECT status FROM payment_claims WHERE signature = ?').pluck().get(signature), 'redeemed')
  t.equal(await status(url, proofHeaders(signature, buyer.address)), 402, 'and the proof stays spent')
})
