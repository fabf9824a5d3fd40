import t, { type Test } from 'tap'
import { Challenge, Credential, Receipt } from 'mppx'
import { Mppx, solana } from '@solana/mpp/client'
import type { KeyPairSigner } from '@solana/kit'
import { proofHeaders } from '../fixtures/paid-chain.js'
import { buildExactPayment, paymentRequiredOf, v2Header } from '../fixtures/x402-payment.js'
import { startX402Merchant, type X402Merchant } from '../fixtures/x402-merchant.js'

// MPP's Solana charge (issue #53) bought with the unmodified @solana/mpp client through
// Mppx.create, in pull and push mode, on the local chain; balances read on chain.

type Mode = 'pull' | 'push'
type Candidate = { challenge: { request: { methodDetails?: { feePayer?: boolean } } } }

/** The unmodified client; in push mode it orders first the challenge it can pay (no fee payer), as wave5's notes say a push client must. */
function mppFetch (m: X402Merchant, buyer: KeyPairSigner, mode: Mode, fetchImpl: typeof fetch = fetch) {
  const mppx = Mppx.create({
    methods: [solana.charge({ signer: buyer, rpcUrl: m.paid.chain.url, broadcast: mode === 'push' })],
    polyfill: false,
    fetch: fetchImpl,
    ...(mode === 'push'
      ? { orderChallenges: (candidates: readonly Candidate[]) => [...candidates].sort((a, b) => Number(a.challenge.request.methodDetails?.feePayer === true) - Number(b.challenge.request.methodDetails?.feePayer === true)) }
      : {})
  } as Parameters<typeof Mppx.create>[0])
  return mppx.fetch
}

/** A fetch that keeps the credential the client would send and sends nothing (a pull credential's transaction then never moves). */
function capturing (): { fetch: typeof fetch, credential: () => string } {
  let credential: string | undefined
  return {
    credential: () => credential as string,
    fetch: async (input, init) => {
      const header = new Headers(init?.headers).get('authorization')
      if (header === null) return await fetch(input, init)
      credential = header
      return new Response('kept', { status: 599 })
    }
  }
}

/** The challenges of a 402, by mode. */
async function challengesOf (url: string) {
  const res = await fetch(url)
  const challenges = Challenge.deserializeList(res.headers.get('www-authenticate') ?? '')
  const pull = challenges.find(c => (c.request.methodDetails as { feePayer?: boolean }).feePayer === true)
  const push = challenges.find(c => (c.request.methodDetails as { feePayer?: boolean }).feePayer !== true)
  return { pull: pull as Challenge.Challenge, push: push as Challenge.Challenge, all: challenges }
}

async function payWith (url: string, authorization: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { authorization, ...headers } })
  return { status: res.status, headers: res.headers, body: await res.json() as Record<string, unknown> }
}

t.test('MPP over HTTP on the local chain', async t => {
  const m = await startX402Merchant(t)
  const routes = [
    { path: '/api/fetch-price/SOL', price: 50_000n, check: (body: any) => body.data?.mintSymbol === 'SOL' },
    { path: `/api/analyze-token/${m.paid.mint}`, price: 100_000n, check: (body: any) => body.mint === m.paid.mint }
  ]

  t.test('the 402 offers a pull and a push charge beside x402, bound to the resource', async t => {
    const res = await fetch(`${m.url}${routes[0].path}`)
    t.equal(res.status, 402)
    t.ok(res.headers.get('payment-required'), 'x402 v2 requirements still there')
    const { pull, push, all } = await challengesOf(`${m.url}${routes[0].path}`)
    t.equal(all.length, 2, 'two challenges')
    t.equal(all[0], pull, 'pull first: a default client (no SOL) takes it')
    for (const challenge of [pull, push]) {
      t.match(challenge, { method: 'solana', intent: 'charge', realm: new URL(m.url).host, expires: String })
      t.match(challenge.request, { amount: '50000', currency: m.paid.mint, recipient: m.paid.merchant.address, methodDetails: { network: 'devnet', decimals: 6 } })
      t.ok(Challenge.verify(challenge, { secretKey: 'not-the-merchants-key-not-the-merchants-key' }) === false, 'bound by a key only the merchant has')
    }
    t.match(pull.request.methodDetails, { feePayer: true, feePayerKey: m.feePayer.address })
    t.notOk((push.request.methodDetails as Record<string, unknown>).feePayer, 'push: the buyer pays its own fee')
  })

  for (const mode of ['pull', 'push'] as const) {
    t.test(`@solana/mpp's client pays both products in ${mode} mode`, async t => {
      const buyer = await m.paid.newBuyer(10_000_000n)
      const pay = mppFetch(m, buyer, mode)
      for (const route of routes) {
        const before = await m.merchantBalance()
        const tokens = await m.tokenBalance(buyer.address)
        const sol = await m.solBalance(buyer.address)
        const res = await pay(`${m.url}${route.path}`)
        const body = await res.json()
        t.equal(res.status, 200, `${route.path}: ${JSON.stringify(body).slice(0, 300)}`)
        t.ok(route.check(body), 'the data')
        const receipt = Receipt.fromResponse(res)
        t.match(receipt, { method: 'solana', status: 'success', reference: String })
        t.equal(await m.merchantBalance() - before, route.price, 'the merchant got exactly the price')
        t.equal(tokens - await m.tokenBalance(buyer.address), route.price, 'the buyer paid exactly the price')
        if (mode === 'pull') t.equal(await m.solBalance(buyer.address), sol, 'pull: the merchant paid the fee')
        else t.ok(await m.solBalance(buyer.address) < sol, 'push: the buyer paid its own fee')
      }
    })
  }

  t.test('a replayed credential moves nothing and buys nothing', async t => {
    for (const mode of ['pull', 'push'] as const) {
      const buyer = await m.paid.newBuyer(10_000_000n)
      const seen: string[] = []
      const recording: typeof fetch = async (input, init) => {
        const header = new Headers(init?.headers).get('authorization')
        if (header !== null) seen.push(header)
        return await fetch(input, init)
      }
      const url = `${m.url}${routes[0].path}`
      t.equal((await mppFetch(m, buyer, mode, recording)(url)).status, 200, `${mode}: bought once`)
      const before = await m.merchantBalance()
      const again = await payWith(url, seen[0])
      t.equal(again.status, 402, `${mode}: the same credential again`)
      t.equal(again.body.code, 'PAYMENT_ALREADY_USED')
      t.notOk(again.headers.get('www-authenticate'), 'a refusal offers no challenge an MPP client would pay again')
      t.equal(await m.merchantBalance(), before, 'nothing moved')
    }
  })

  t.test('a credential for another resource, or tampered, is refused before anything moves', async t => {
    const buyer = await m.paid.newBuyer(10_000_000n)
    const kept = capturing()
    await mppFetch(m, buyer, 'pull', kept.fetch)(`${m.url}${routes[0].path}`)
    const credential = kept.credential()
    const before = await m.tokenBalance(buyer.address)

    const other = await payWith(`${m.url}${routes[1].path}`, credential)
    t.equal(other.body.code, 'MPP_CHALLENGE_MISMATCH', 'another product')
    const sameProduct = await payWith(`${m.url}/api/fetch-price/BONK`, credential)
    t.equal(sameProduct.body.code, 'MPP_CHALLENGE_MISMATCH', 'the same product at another resource')

    const parsed = Credential.deserialize(credential)
    const cheaper = Credential.serialize({ ...parsed, challenge: { ...parsed.challenge, request: { ...parsed.challenge.request, amount: '1' } } })
    t.equal((await payWith(`${m.url}${routes[0].path}`, cheaper)).body.code, 'MPP_CHALLENGE_INVALID', 'an altered challenge')
    const garbage = await payWith(`${m.url}${routes[0].path}`, 'Payment bm90LWpzb24')
    t.equal(garbage.body.code, 'MPP_CREDENTIAL_INVALID', 'not a credential')
    t.match(garbage.body, { error: String, message: String, requestId: String })
    const pushWithTransaction = Credential.serialize({ challenge: (await challengesOf(`${m.url}${routes[0].path}`)).push, payload: parsed.payload })
    t.equal((await payWith(`${m.url}${routes[0].path}`, pushWithTransaction)).body.code, 'MPP_CREDENTIAL_INVALID', 'a transaction for the push challenge')
    t.equal(await m.tokenBalance(buyer.address), before, 'nothing moved')

    const bearer = await fetch(`${m.url}${routes[0].path}`, { headers: { authorization: 'Bearer x' } })
    t.equal(bearer.status, 402, 'another Authorization scheme is no payment')
    t.equal((await bearer.json() as { code?: string }).code, 'PAYMENT_REQUIRED')
  })

  t.test('one payment, one delivery across protocols', async t => {
    const url = `${m.url}${routes[0].path}`
    const price = routes[0].price

    t.test('a pay-then-prove proof is no MPP push payment, and the reverse', async t => {
      const buyer = await m.paid.newBuyer(10_000_000n)
      const proved = await m.paid.pay(buyer, price)
      t.equal((await fetch(url, { headers: proofHeaders(proved, buyer.address) })).status, 200, 'bought with the proof headers')
      const asMpp = await payWith(url, Credential.serialize({ challenge: (await challengesOf(url)).push, payload: { type: 'signature', signature: proved } }))
      t.equal(asMpp.body.code, 'PAYMENT_ALREADY_USED', 'the proof\'s signature as an MPP push credential')

      const pushed = await m.paid.pay(buyer, price)
      t.equal((await payWith(url, Credential.serialize({ challenge: (await challengesOf(url)).push, payload: { type: 'signature', signature: pushed } }))).status, 200, 'bought with MPP push')
      const asProof = await fetch(url, { headers: proofHeaders(pushed, buyer.address) })
      t.equal((await asProof.json() as { code?: string }).code, 'PAYMENT_ALREADY_USED', 'the MPP push signature as a proof')
    })

    t.test('an x402 transaction is no MPP pull payment, and the reverse', async t => {
      const buyer = await m.paid.newBuyer(10_000_000n)
      const required = paymentRequiredOf((await fetch(url)).headers)
      const first = await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: price })
      t.equal((await fetch(url, { headers: { 'payment-signature': v2Header(first, required.accepts[0], required.resource) } })).status, 200, 'bought with x402')
      const before = await m.merchantBalance()
      const asMpp = await payWith(url, Credential.serialize({ challenge: (await challengesOf(url)).pull, payload: { type: 'transaction', transaction: first } }))
      t.equal(asMpp.body.code, 'PAYMENT_ALREADY_USED', 'the x402 transaction as an MPP pull credential')

      const second = await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: price })
      t.equal((await payWith(url, Credential.serialize({ challenge: (await challengesOf(url)).pull, payload: { type: 'transaction', transaction: second } }))).status, 200, 'bought with MPP pull')
      const asX402 = await fetch(url, { headers: { 'payment-signature': v2Header(second, required.accepts[0], required.resource) } })
      t.equal((await asX402.json() as { code?: string }).code, 'PAYMENT_ALREADY_USED', 'the MPP pull transaction as x402')
      t.equal(await m.merchantBalance() - before, price, 'one price moved for the two attempts with the second transaction')
    })
  })

  t.test('where MPP is stricter than pay-then-prove, the stricter wins: a push charge is exactly its amount', async t => {
    const buyer = await m.paid.newBuyer(10_000_000n)
    const url = `${m.url}${routes[0].path}`
    const overpaid = await m.paid.pay(buyer, routes[0].price + 1n)
    const refused = await payWith(url, Credential.serialize({ challenge: (await challengesOf(url)).push, payload: { type: 'signature', signature: overpaid } }))
    t.equal(refused.body.code, 'AMOUNT_NOT_EXACT')
    t.equal((await fetch(url, { headers: proofHeaders(overpaid, buyer.address) })).status, 200, 'pay-then-prove takes at least the price')
  })
})

t.test('MPP_CHARGE=false: no challenge, and a credential is no payment', async (t: Test) => {
  const m = await startX402Merchant(t, { MPP_CHARGE: 'false' })
  const res = await fetch(`${m.url}/api/fetch-price/SOL`)
  t.equal(res.status, 402)
  t.notOk(res.headers.get('www-authenticate'))
  const paid = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { authorization: 'Payment e30' } })
  t.equal((await paid.json() as { code?: string }).code, 'PAYMENT_REQUIRED')
})
