import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { auditRowsOf, build, testEnv, sqliteOf } from '../../helper.js'
import { proofHeaders, startPaidChain } from '../../fixtures/paid-chain.js'
import { startTestPostgres } from '../../fixtures/postgres.js'
import { spawnServer } from '../../fixtures/server-process.js'
import { ENGINES, lazyPostgres, storeTarget } from '../../fixtures/stores.js'

const postgres = lazyPostgres(t, startTestPostgres)

// The same guarantees on both stores: the SQLite file shared by the processes of one machine, and
// PostgreSQL shared by several machines.
for (const engine of ENGINES) {
  t.test(`a proof buys exactly one delivery (${engine})`, async (t) => {
    const paid = await startPaidChain(t)
    const buyer = await paid.newBuyer(10_000_000n)
    const env = testEnv(t, { ...paid.env, PAYMENT_LEASE_SECONDS: '5', UPSTREAM_TIMEOUT_MS: '1000', RPC_TIMEOUT_MS: '1000', X402_SETTLEMENT_TIMEOUT_MS: '1000', ...(await storeTarget(t, engine, postgres)).env })
    let failNext = false
    // The store's clock, turned to let a lease run out instead of waiting for it.
    let ahead = 0
    const app = await build(t, env, (app) => {
      app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => {
        if (failNext) {
          failNext = false
          throw new Error('upstream fell over')
        }
        await sleep(20) // long enough for concurrent requests to overlap
        return { delivered: true }
      })
    }, undefined, undefined, () => Date.now() + ahead)
    const claimStatus = async (signature: string) => (await app.store.claims.status(signature))?.status

    t.test('50 concurrent requests with one proof over real HTTP: exactly one 200', async (t) => {
      const url = await app.listen({ port: 0, host: '127.0.0.1' })
      const signature = await paid.pay(buyer, 50_000n)
      const responses = await Promise.all(Array.from({ length: 50 }, async () => {
        const res = await fetch(`${url}/test/paid`, { headers: proofHeaders(signature, buyer.address) })
        return { status: res.status, code: ((await res.json()) as { code?: string }).code }
      }))
      t.equal(responses.filter(r => r.status === 200).length, 1, 'one delivery')
      const refusals = new Set(responses.filter(r => r.status !== 200).map(r => `${r.status} ${r.code}`))
      t.ok([...refusals].every(r => r === '402 PAYMENT_ALREADY_USED' || r === '409 PAYMENT_IN_PROGRESS'), `the rest are told why: ${[...refusals].join(', ')}`)
      t.equal(await claimStatus(signature), 'redeemed')
      const delivered = (await auditRowsOf(app, signature)).filter(row => row.outcome === 'DELIVERED')
      t.equal(delivered.length, 1, 'one DELIVERED audit row')
    })

    t.test('a failing handler releases the proof; the next attempt succeeds with it', async (t) => {
      const signature = await paid.pay(buyer, 50_000n)
      failNext = true
      const failed = await app.inject({ url: '/test/paid', headers: proofHeaders(signature, buyer.address) })
      t.equal(failed.statusCode, 500)
      t.notOk(failed.headers['x-payment-response'], 'no receipt for a failed delivery')
      t.equal(await claimStatus(signature), undefined, 'the claim was released')
      t.same(await auditRowsOf(app, signature), [{ outcome: 'INTERNAL_ERROR', verified: true }])

      const retry = await app.inject({ url: '/test/paid', headers: proofHeaders(signature, buyer.address) })
      t.equal(retry.statusCode, 200)
      t.equal(await claimStatus(signature), 'redeemed')
    })

    t.test('RPC trouble is a 503 that leaves the proof untouched', async (t) => {
      const signature = await paid.pay(buyer, 50_000n)
      paid.chain.failMethod('getTransaction', { httpStatus: 503 })
      const res = await app.inject({ url: '/test/paid', headers: proofHeaders(signature, buyer.address) })
      paid.chain.failMethod('getTransaction', null)
      t.equal(res.statusCode, 503)
      t.equal(res.json().code, 'RPC_UNAVAILABLE')
      t.ok(Number(res.headers['retry-after']) > 0)
      t.equal(await claimStatus(signature), undefined, 'nothing recorded as used')
      t.equal((await app.inject({ url: '/test/paid', headers: proofHeaders(signature, buyer.address) })).statusCode, 200)
    })

    t.test('replay from a second process on the same database, and a claim orphaned by a killed process', async (t) => {
      const priceApi = await startPriceApi()
      t.teardown(() => priceApi.stop())
      const other = spawnServer({ ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PRICE_API_URL: priceApi.url })
      t.teardown(() => { other.child.kill('SIGKILL') })
      const otherUrl = await other.ready()

      const spentElsewhere = await paid.pay(buyer, 50_000n)
      const there = await fetch(`${otherUrl}/api/fetch-price/SOL`, { headers: proofHeaders(spentElsewhere, buyer.address) })
      t.equal(there.status, 200, 'the other process delivers')
      const here = await app.inject({ url: '/test/paid', headers: proofHeaders(spentElsewhere, buyer.address) })
      t.equal(here.json().code, 'PAYMENT_ALREADY_USED', 'this process sees it spent')

      // The other process claims a proof, then dies while its upstream call hangs.
      priceApi.fail({ mode: 'slow', delayMs: 60_000 })
      const orphaned = await paid.pay(buyer, 50_000n)
      fetch(`${otherUrl}/api/fetch-price/JUP`, { headers: proofHeaders(orphaned, buyer.address) }).catch(() => {})
      for (let i = 0; i < 100 && await claimStatus(orphaned) !== 'pending'; i++) await sleep(50)
      t.equal(await claimStatus(orphaned), 'pending', 'claimed by the other process')
      other.child.kill('SIGKILL')
      await other.exited

      const during = await app.inject({ url: '/test/paid', headers: proofHeaders(orphaned, buyer.address) })
      t.equal(during.statusCode, 409, 'still leased')
      t.equal(during.json().code, 'PAYMENT_IN_PROGRESS')
      t.equal(during.headers['retry-after'], '1')
      ahead += 5_200 // past the 5 s lease the other process took on its own clock
      const after = await app.inject({ url: '/test/paid', headers: proofHeaders(orphaned, buyer.address) })
      t.equal(after.statusCode, 200, 'usable again once the lease ran out')
    })
  })
}

t.test('a Token-2022 payment mint with a transfer fee counts what the merchant received', async (t) => {
  const paid = await startPaidChain(t, {
    mint: { program: 'token-2022', extensions: { transferFee: { basisPoints: 100, maximumFee: 1_000_000n } } }
  })
  const buyer = await paid.newBuyer(10_000_000n)
  const app = await build(t, paid.env, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const exact = await paid.pay(buyer, 50_000n)
  const short = await app.inject({ url: '/test/paid', headers: proofHeaders(exact, buyer.address) })
  t.equal(short.json().code, 'AMOUNT_TOO_LOW', 'the 1% fee is withheld from the merchant')
  t.equal(short.json().paid, '49500')

  const grossedUp = await paid.pay(buyer, 50_506n)
  const res = await app.inject({ url: '/test/paid', headers: proofHeaders(grossedUp, buyer.address) })
  t.equal(res.statusCode, 200)
  t.equal(sqliteOf(app).prepare('SELECT amount FROM audit_log WHERE signature = ?').pluck().get(grossedUp), '50000', 'the fee rounds up: 506 withheld')
})

t.test('an RPC HTTP error is logged as a summary and answered 503, with logging on', async (t) => {
  const paid = await startPaidChain(t)
  const buyer = await paid.newBuyer()
  const lines: Array<Record<string, unknown>> = []
  const app = await build(t, { ...paid.env, LOG_LEVEL: 'info' }, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>) } })
  const signature = await paid.pay(buyer, 50_000n)
  paid.chain.failMethod('getTransaction', { httpStatus: 429, retryAfter: 3 })
  const res = await app.inject({ url: '/test/paid', headers: proofHeaders(signature, buyer.address) })
  t.equal(res.statusCode, 503)
  t.equal(res.json().code, 'RPC_UNAVAILABLE')
  t.equal(res.headers['retry-after'], '3', "the node's Retry-After is passed on")
  t.notMatch(res.body, /127\.0\.0\.1/, 'nothing about the node leaks')
  const logged = lines.find(line => line.msg === 'request failed')
  t.match(logged, { code: 'RPC_UNAVAILABLE', error: { type: 'SolanaError', httpStatus: 429 } })
})
