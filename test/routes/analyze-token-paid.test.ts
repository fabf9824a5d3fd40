import t from 'tap'
import { build } from '../helper.js'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'

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
