import { setTimeout as sleep } from 'node:timers/promises'
import { generateKeyPairSigner } from '@solana/kit'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { registerAgent } from '../../client/register.js'
import { auditRowsOf, build, testEnv } from '../helper.js'
import { startMisbehavingRpc } from '../fixtures/misbehaving-rpc.js'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'
import { startTestPostgres } from '../fixtures/postgres.js'

// Several instances of the service on one PostgreSQL database, as behind a load balancer: real
// HTTP servers, real transactions on the local chain, a real PostgreSQL server. (An instance
// SIGKILLed mid-delivery, its claim recovered by another after the lease: the postgres run of
// test/plugins/payment/exactly-once.test.ts.)
t.test('two instances on one PostgreSQL database', async t => {
  const postgres = await startTestPostgres(t)
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  const env = testEnv(t, {
    ...paid.env,
    DATABASE_URL: await postgres.createDatabase(t),
    PRICE_API_URL: priceApi.url,
    PRICE_CACHE_TTL_MS: '0',
    PAYMENT_LEASE_SECONDS: '20',
    UPSTREAM_TIMEOUT_MS: '3000',
    RPC_TIMEOUT_MS: '3000',
    X402_SETTLEMENT_TIMEOUT_MS: '1000'
  })
  const instances = [await build(t, env), await build(t, env)]
  const [a, b] = instances
  t.equal(a.store.engine, 'postgres')
  const urls = await Promise.all(instances.map(async app => await app.listen({ port: 0, host: '127.0.0.1' })))
  const buyer = await paid.newBuyer(100_000_000n)
  const deliveredRows = async (signature: string) =>
    (await auditRowsOf(a, signature)).filter(row => row.outcome === 'DELIVERED').length
  const routes = { price: '/api/fetch-price/SOL', analysis: `/api/analyze-token/${paid.mint}` }
  const call = async (url: string, path: string, signature: string) => {
    const res = await fetch(`${url}${path}`, { headers: proofHeaders(signature, buyer.address) })
    return { status: res.status, code: ((await res.json()) as { code?: string }).code, retryAfter: res.headers.get('retry-after') }
  }

  const callUntilDecided = async (url: string, path: string, signature: string) => {
    for (let attempt = 1; ; attempt++) {
      const answer = await call(url, path, signature)
      if (answer.status !== 409 || attempt === 5) return answer
      t.match(answer, { code: 'PAYMENT_IN_PROGRESS', retryAfter: '1' }, 'told to retry while the first answer is being recorded')
      await sleep(Number(answer.retryAfter) * 1000)
    }
  }

  t.test('proofs raced over both instances and both routes: exactly one 200 per proof', async t => {
    // 0.1 proofs buy either route, 0.05 proofs only the price: every proof is raced 12 times.
    const proofs: Array<{ signature: string, paths: string[] }> = []
    for (let i = 0; i < 3; i++) proofs.push({ signature: await paid.pay(buyer, 100_000n + BigInt(i)), paths: [routes.analysis, routes.price] })
    for (let i = 0; i < 3; i++) proofs.push({ signature: await paid.pay(buyer, 50_000n + BigInt(i)), paths: [routes.price] })
    const answers = await Promise.all(proofs.map(async proof => await Promise.all(Array.from({ length: 12 }, async (_, i) =>
      await call(urls[i % 2], proof.paths[Math.floor(i / 2) % proof.paths.length], proof.signature)))))
    for (const [i, proof] of proofs.entries()) {
      const statuses = answers[i]
      t.equal(statuses.filter(answer => answer.status === 200).length, 1, `proof ${i}: one delivery`)
      t.ok(statuses.every(answer => answer.status === 200 || (answer.status === 402 && answer.code === 'PAYMENT_ALREADY_USED') ||
        (answer.status === 409 && answer.code === 'PAYMENT_IN_PROGRESS' && answer.retryAfter === '1')), `proof ${i}: the others are told why: ${JSON.stringify(statuses)}`)
      t.equal(await deliveredRows(proof.signature), 1, `proof ${i}: one DELIVERED audit row`)
      t.equal((await b.store.claims.status(proof.signature))?.status, 'redeemed')
    }
  })

  t.test('a proof spent on one instance is refused by the other', async t => {
    const signature = await paid.pay(buyer, 50_000n)
    t.equal((await call(urls[0], routes.price, signature)).status, 200)
    // The same request may come while instance 0 still writes that its answer reached the buyer:
    // then it is told to retry (409, Retry-After), as a client would, until the answer is final.
    t.match(await callUntilDecided(urls[1], routes.price, signature), { status: 402, code: 'PAYMENT_ALREADY_USED' })
    t.match(await call(urls[1], routes.analysis, signature), { status: 402, code: 'PAYMENT_ALREADY_USED' }, 'on any route')
  })

  t.test('a failed delivery on one instance gives the proof back; the other delivers with it', async t => {
    const signature = await paid.pay(buyer, 50_000n)
    priceApi.fail({ mode: 'error', status: 500, path: '/price/v3' })
    const failed = await call(urls[0], routes.price, signature)
    priceApi.fail(null)
    t.match(failed, { status: 502, code: 'UPSTREAM_ERROR' })
    t.equal((await a.store.claims.status(signature))?.status, undefined, 'released')
    t.equal((await call(urls[1], routes.price, signature)).status, 200)
  })

  t.test('the registry is read from the chain once for two instances; both serve the shared cache', async t => {
    const rpc = await startMisbehavingRpc(t, paid.chain.url)
    const registryAddress = (await generateKeyPairSigner()).address
    const agent = await paid.chain.createWallet()
    await registerAgent({ rpc: paid.chain.rpc, signer: agent, registryAddress, name: 'shared', manifestUrl: 'https://shared.example/agent.json', pollIntervalMs: 20 })
    const registryEnv = { ...env, SOLANA_RPC_URL: rpc.url, REGISTRY_ADDRESS: registryAddress, REGISTRY_REFRESH_SECONDS: '300' }
    const readers = [await build(t, registryEnv), await build(t, registryEnv)]
    const answers = await Promise.all(Array.from({ length: 10 }, async (_, i) => await readers[i % 2].inject('/registry')))
    t.ok(answers.every(answer => answer.statusCode === 200 && answer.json().total === 1), 'every answer lists the registration')
    t.equal(rpc.calls('getSignaturesForAddress'), 1, 'one chain read in all')
    t.equal(new Set(answers.map(answer => answer.json().fetched_at)).size, 1, 'the same read, everywhere')
  })
})
