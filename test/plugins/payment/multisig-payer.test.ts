import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import type { Address, KeyPairSigner } from '@solana/kit'
import t, { type Test } from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { signProof } from '../../../lib/payment/wallet-signature.js'
import { build } from '../../helper.js'
import { createTokenMultisig, payFromMultisig } from '../../fixtures/multisig.js'
import { proofHeaders, startPaidChain } from '../../fixtures/paid-chain.js'

const ROUTE = '/api/fetch-price/SOL'
const PRICE = 50_000n

// Pay-then-prove from a token account owned by an SPL Token multisig: the owner (the multisig)
// never signs, so the buyer names it or one of its members who signed; the fee payer and anyone
// else are refused. Real multisigs on the local chain, balances read on chain.
t.test('a multisig-owned account pays with proof headers: the owner or a signing member redeems, nobody else', async (t) => {
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  const env = { ...paid.env, PRICE_API_URL: priceApi.url }
  // Two merchants on the same chain: one that binds proofs to requests (REQUIRE_WALLET_SIGNATURE), one that does not.
  const strict = await build(t, { ...env, REQUIRE_WALLET_SIGNATURE: 'true' })
  const lenient = await build(t, env)
  const relayer = await paid.chain.createWallet()
  const stranger = await paid.chain.createWallet()

  async function balance (owner: Address): Promise<bigint> {
    const [account] = await findAssociatedTokenPda({ owner, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    return BigInt((await paid.chain.rpc.getTokenAccountBalance(account, { commitment: 'confirmed' }).send()).value.amount)
  }
  async function prove (app: typeof strict, signature: string, wallet: Address, signer?: KeyPairSigner) {
    const walletSignature = signer === undefined ? undefined : await signProof(signer, signature, 'GET', ROUTE)
    return await app.inject({
      url: ROUTE,
      headers: { ...proofHeaders(signature, wallet), ...(walletSignature === undefined ? {} : { 'x-payment-wallet-signature': walletSignature }) }
    })
  }
  async function refused (t: Test, app: typeof strict, signature: string, wallet: Address, signer: KeyPairSigner | undefined, code: string) {
    const res = await prove(app, signature, wallet, signer)
    t.equal(res.statusCode, 402, `${code}: 402`)
    t.equal(res.json().code, code)
    t.equal((await app.store.claims.status(signature))?.status, undefined, 'the payment stays unclaimed')
  }

  for (const [m, n, signing] of [[1, 2, [0]], [2, 3, [0, 2]]] as const) {
    t.test(`${m}-of-${n}: members ${signing.join(' and ')} sign, a relayer pays the fee`, async (t) => {
      const multisig = await createTokenMultisig(paid, m, n, 1_000_000n)
      const signers = signing.map(i => multisig.members[i])
      const absent = multisig.members.find(member => !signers.includes(member)) as KeyPairSigner

      const merchantBefore = await balance(paid.merchant.address)
      const first = await payFromMultisig(paid, multisig, signers, relayer, PRICE)
      t.equal(await balance(multisig.address), 1_000_000n - PRICE, 'the multisig paid on chain')
      t.equal(await balance(paid.merchant.address), merchantBefore + PRICE, 'the merchant received the price')

      await refused(t, strict, first, relayer.address, relayer, 'PAYER_MISMATCH')
      const reads = paid.chain.stats().getAccountInfo ?? 0
      await refused(t, strict, first, stranger.address, stranger, 'PAYER_MISMATCH')
      t.equal(paid.chain.stats().getAccountInfo ?? 0, reads, 'a stranger\'s proof costs no account read')
      await refused(t, strict, first, absent.address, absent, 'PAYER_MISMATCH')
      await refused(t, strict, first, multisig.address, undefined, 'WALLET_SIGNATURE_REQUIRED')
      await refused(t, strict, first, signers[0].address, relayer, 'WALLET_SIGNATURE_INVALID')

      const member = signers.at(-1) as KeyPairSigner
      // The multisig is read from the chain: a node that cannot answer is 503, the payment kept.
      paid.chain.failMethod('getAccountInfo', { httpStatus: 503 })
      const unavailable = await prove(strict, first, member.address, member)
      paid.chain.failMethod('getAccountInfo', null)
      t.equal(unavailable.statusCode, 503)
      t.equal(unavailable.json().code, 'RPC_UNAVAILABLE')
      t.ok(unavailable.headers['retry-after'], 'with Retry-After')
      t.equal((await strict.store.claims.status(first))?.status, undefined, 'the payment stays unclaimed')

      const readsBefore = paid.chain.stats().getAccountInfo ?? 0
      const delivered = await prove(strict, first, member.address, member)
      t.ok((paid.chain.stats().getAccountInfo ?? 0) > readsBefore, 'the member was found in the multisig read from the chain')
      t.equal(delivered.statusCode, 200, 'a signing member proves with its own wallet signature')
      t.equal(delivered.json().data.mintSymbol, 'SOL')
      const receipt = JSON.parse(Buffer.from(String(delivered.headers['x-payment-response']), 'base64').toString('utf8'))
      t.match(receipt, { success: true, transaction: first, payer: member.address })
      const again = await prove(strict, first, signers[0].address, signers[0])
      t.equal(again.json().code, 'PAYMENT_ALREADY_USED', 'one payment, one delivery: another member gets nothing more')

      const second = await payFromMultisig(paid, multisig, signers, relayer, PRICE)
      t.equal(await balance(multisig.address), 1_000_000n - 2n * PRICE)
      await refused(t, lenient, second, relayer.address, undefined, 'PAYER_MISMATCH')
      await refused(t, lenient, second, stranger.address, undefined, 'PAYER_MISMATCH')
      const byOwner = await prove(lenient, second, multisig.address)
      t.equal(byOwner.statusCode, 200, 'without REQUIRE_WALLET_SIGNATURE the multisig itself is named')
      t.equal(await balance(paid.merchant.address), merchantBefore + 2n * PRICE, 'two payments, two deliveries, nothing more moved')
    })
  }

  t.test('an owner that is not a multisig and did not sign is never accepted', async (t) => {
    // The buyer signs its own transfer; the relayer pays the fee: naming the relayer is refused, the buyer redeems.
    const buyer = await paid.newBuyer(1_000_000n)
    const signature = await paid.pay(buyer, PRICE)
    await refused(t, lenient, signature, paid.merchant.address, undefined, 'PAYER_MISMATCH')
    const res = await prove(lenient, signature, buyer.address)
    t.equal(res.statusCode, 200)
  })
})
