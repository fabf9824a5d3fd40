import { generateKeyPairSigner } from '@solana/kit'
import t from 'tap'
import { signProof } from '../../../lib/payment/wallet-signature.js'
import { build } from '../../helper.js'
import { proofHeaders, startPaidChain } from '../../fixtures/paid-chain.js'

t.test('request-bound proofs: a front-runner with a stolen signature is refused, the owner is served', async t => {
  const paid = await startPaidChain(t)
  const app = await build(t, { ...paid.env, REQUIRE_WALLET_SIGNATURE: 'true', REDELIVERY: 'buyer-only' }, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const buyer = await paid.newBuyer()
  const signature = await paid.pay(buyer, 50_000n)

  const challenge = (await app.inject('/test/paid')).json()
  t.equal(challenge.accepts[0].extra.walletSignatureRequired, true, 'the 402 announces the requirement')
  t.equal((await app.inject('/.well-known/agent.json')).json().proof_wallet_signature, 'required', 'and so does the manifest')
  t.equal(challenge.accepts[0].extra.redelivery, 'buyer-only', 'the 402 names who gets a lost answer again')
  t.equal((await app.inject('/.well-known/agent.json')).json().redelivery, 'buyer-only', 'the manifest too')
  const defaults = await build(t, paid.env)
  t.match((await defaults.inject('/api/fetch-price/SOL')).json().accepts[0].extra, { walletSignatureRequired: false, redelivery: 'payment' }, 'by default: the seed\'s flow, discoverable')
  t.equal((await defaults.inject('/.well-known/agent.json')).json().redelivery, 'payment')

  // The front-runner saw the transaction land: it knows the signature and the payer, not the key.
  const stolen = await app.inject({ url: '/test/paid', headers: proofHeaders(signature, buyer.address) })
  t.equal(stolen.statusCode, 402)
  t.equal(stolen.json().code, 'WALLET_SIGNATURE_REQUIRED')
  const thief = await generateKeyPairSigner()
  const forged = await app.inject({
    url: '/test/paid',
    headers: { ...proofHeaders(signature, buyer.address), 'x-payment-wallet-signature': await signProof(thief, signature, 'GET', '/test/paid') as string }
  })
  t.equal(forged.json().code, 'WALLET_SIGNATURE_INVALID', 'a signature by another key is refused')
  const otherPath = await app.inject({
    url: '/test/paid',
    headers: { ...proofHeaders(signature, buyer.address), 'x-payment-wallet-signature': await signProof(buyer, signature, 'GET', '/elsewhere') as string }
  })
  t.equal(otherPath.json().code, 'WALLET_SIGNATURE_INVALID', 'a signature for another request is refused')

  const owner = await app.inject({
    url: '/test/paid?x=1',
    headers: { ...proofHeaders(signature, buyer.address), 'x-payment-wallet-signature': await signProof(buyer, signature, 'GET', '/test/paid') as string }
  })
  t.equal(owner.statusCode, 200, 'the owner still gets the delivery (the query string is not signed)')
})

t.test('without REQUIRE_WALLET_SIGNATURE a missing one is fine, an invalid one is still refused', async t => {
  const paid = await startPaidChain(t)
  const app = await build(t, paid.env, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const buyer = await paid.newBuyer()
  t.equal((await app.inject('/.well-known/agent.json')).json().proof_wallet_signature, 'optional')
  const first = await paid.pay(buyer, 50_000n)
  const bad = await app.inject({ url: '/test/paid', headers: { ...proofHeaders(first, buyer.address), 'x-payment-wallet-signature': '1111' } })
  t.equal(bad.json().code, 'WALLET_SIGNATURE_INVALID')
  t.equal((await app.inject({ url: '/test/paid', headers: proofHeaders(first, buyer.address) })).statusCode, 200, 'the seed flow works as before')
})
