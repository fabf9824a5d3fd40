import { statSync } from 'node:fs'
import { getBase58Decoder } from '@solana/kit'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { build, sqliteOf } from '../../helper.js'
import { proofHeaders, startPaidChain } from '../../fixtures/paid-chain.js'

const GARBAGE_REQUESTS = 10_000
const BUDGET_BYTES = 1_000_000
const randomSignature = () => getBase58Decoder().decode(randomBytes(64))
const randomWallet = () => getBase58Decoder().decode(randomBytes(32))

t.test('unpaid traffic costs no storage and at most one RPC call per distinct proof', async t => {
  const paid = await startPaidChain(t)
  const app = await build(t, paid.env, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const databasePath = app.config.DATABASE_PATH
  const databaseBytes = () => ['', '-wal'].reduce((sum, suffix) => {
    try { return sum + statSync(databasePath + suffix).size } catch { return sum }
  }, 0)
  sqliteOf(app).pragma('wal_checkpoint(TRUNCATE)')
  const before = databaseBytes()
  paid.chain.resetStats()

  const longQuery = `?q=${'x'.repeat(14_000)}`
  const randomProofs = GARBAGE_REQUESTS / 4
  for (let i = 0; i < GARBAGE_REQUESTS; i++) {
    const kind = i % 4
    const headers = kind === 0
      ? {}
      : kind === 1
        ? { 'x-payment-signature': 'not-a-signature', 'x-payment-wallet': 'nor-a-wallet' }
        : kind === 2
          ? { 'x-payment-signature': randomSignature().slice(0, 40), 'x-payment-wallet': randomWallet() }
          : proofHeaders(randomSignature(), randomWallet())
    const res = await app.inject({ url: `/test/paid${kind === 1 ? longQuery : ''}`, headers })
    if (res.statusCode !== 402) t.fail(`request ${i} answered ${res.statusCode}`)
  }
  await app.store.audit.flushUnpaid()
  sqliteOf(app).pragma('wal_checkpoint(TRUNCATE)')
  const grown = databaseBytes() - before
  t.ok(grown < BUDGET_BYTES, `${GARBAGE_REQUESTS} garbage requests grew the database by ${grown} bytes (budget ${BUDGET_BYTES})`)
  t.equal(sqliteOf(app).prepare('SELECT count(*) FROM audit_log').pluck().get(), 0, 'not one audit row')
  t.same(sqliteOf(app).prepare('SELECT outcome, count FROM unpaid_counts ORDER BY outcome').all(), [
    { outcome: 'INVALID_PAYMENT_HEADER', count: GARBAGE_REQUESTS / 2 },
    { outcome: 'PAYMENT_NOT_FOUND', count: randomProofs },
    { outcome: 'PAYMENT_REQUIRED', count: GARBAGE_REQUESTS / 4 }
  ], 'counted by outcome')
  t.equal(paid.chain.stats().getTransaction, randomProofs, 'one getTransaction per well-formed random proof, none for the rest')

  const reputation = (await app.inject('/reputation')).json()
  t.match(reputation, { requests: 0, transactions: 0, failures: {} }, '/reputation is not inflated by proofs that name no payment')
  t.same(Object.keys(reputation.failures), [])

  t.test('concurrent look-ups of one signature share one RPC call', async t => {
    paid.chain.resetStats()
    const headers = proofHeaders(randomSignature(), randomWallet())
    const answers = await Promise.all(Array.from({ length: 20 }, async () => await app.inject({ url: '/test/paid', headers })))
    t.same(answers.map(res => res.json().code), Array(20).fill('PAYMENT_NOT_FOUND'))
    t.same(paid.chain.stats(), { getTransaction: 1 })
  })
})

t.test('HEAD never verifies, claims or spends a proof', async t => {
  const paid = await startPaidChain(t)
  const app = await build(t, paid.env, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const buyer = await paid.newBuyer()
  const headers = proofHeaders(await paid.pay(buyer, 50_000n), buyer.address)
  paid.chain.resetStats()
  const head = await app.inject({ method: 'HEAD', url: '/test/paid', headers })
  t.equal(head.statusCode, 402, 'answered like an unpaid GET')
  t.equal(head.body, '', 'with no body')
  t.notOk(head.headers['x-payment-response'], 'and no receipt')
  t.same(paid.chain.stats(), {}, 'nothing was looked up')
  const get = await app.inject({ url: '/test/paid', headers })
  t.equal(get.statusCode, 200, 'the proof still buys its delivery')
})

t.test('PROOF_FAILURE_LIMIT throttles a client whose proofs keep failing, before any RPC call', async t => {
  const paid = await startPaidChain(t)
  const app = await build(t, { ...paid.env, PROOF_FAILURE_LIMIT: '3', RATE_LIMIT_WINDOW_MS: '60000' }, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const attacker = '10.0.0.66'
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ url: '/test/paid', remoteAddress: attacker, headers: proofHeaders(randomSignature(), randomWallet()) })
    t.equal(res.json().code, 'PAYMENT_NOT_FOUND')
  }
  paid.chain.resetStats()
  const throttled = await app.inject({ url: '/test/paid', remoteAddress: attacker, headers: proofHeaders(randomSignature(), randomWallet()) })
  t.equal(throttled.statusCode, 429)
  t.equal(throttled.json().code, 'RATE_LIMITED')
  t.ok(Number(throttled.headers['retry-after']) > 0, 'with Retry-After')
  t.same(paid.chain.stats(), {}, 'no RPC call for it')

  const buyer = await paid.newBuyer()
  const honest = await app.inject({ url: '/test/paid', remoteAddress: '10.0.0.7', headers: proofHeaders(await paid.pay(buyer, 50_000n), buyer.address) })
  t.equal(honest.statusCode, 200, 'another client with a good proof is served')
})
