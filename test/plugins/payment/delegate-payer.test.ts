import { findAssociatedTokenPda, getApproveInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import type { Address, KeyPairSigner } from '@solana/kit'
import t, { type Test } from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { signProof } from '../../../lib/payment/wallet-signature.js'
import { build } from '../../helper.js'
import { DECIMALS, proofHeaders, startPaidChain, tokenBalanceOf } from '../../fixtures/paid-chain.js'

const ROUTE = '/api/fetch-price/SOL'
const PRICE = 50_000n

// Pay-then-prove from an account a delegate spends (SPL Approve, then the delegate's own
// TransferChecked): the owner never signs, so only the delegate can name itself, and only with
// the request-bound wallet signature. Real transfers on the local chain, balances read on chain.
t.test('a delegate that moved the tokens redeems with its wallet signature; nobody else does', async (t) => {
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  const app = await build(t, { ...paid.env, PRICE_API_URL: priceApi.url })

  const owner = await paid.newBuyer(1_000_000n)
  const delegate = await paid.chain.createWallet()
  const stranger = await paid.chain.createWallet()
  const [source] = await findAssociatedTokenPda({ owner: owner.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  const [destination] = await findAssociatedTokenPda({ owner: paid.merchant.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  await paid.chain.sendInstructions([getApproveInstruction({ source, delegate: delegate.address, owner, amount: 2n * PRICE })], [owner])

  const merchantBefore = await tokenBalanceOf(paid, paid.merchant.address)
  const signature = await paid.chain.sendInstructions([
    getTransferCheckedInstruction({ source, mint: paid.mint, destination, authority: delegate, amount: PRICE, decimals: DECIMALS })
  ], [delegate])
  t.equal(await tokenBalanceOf(paid, owner.address), 1_000_000n - PRICE, "the owner's tokens paid, on chain")
  t.equal(await tokenBalanceOf(paid, paid.merchant.address), merchantBefore + PRICE, 'the merchant received the price')

  const prove = async (wallet: Address, signer?: KeyPairSigner) => await app.inject({
    url: ROUTE,
    headers: {
      ...proofHeaders(signature, wallet),
      ...(signer === undefined ? {} : { 'x-payment-wallet-signature': await signProof(signer, signature, 'GET', ROUTE) as string })
    }
  })
  const refused = async (t: Test, wallet: Address, signer: KeyPairSigner | undefined, code: string) => {
    const res = await prove(wallet, signer)
    t.equal(res.statusCode, 402, `${code}: 402`)
    t.equal(res.json().code, code)
    t.equal((await app.store.claims.status(signature))?.status, undefined, 'the payment stays unclaimed')
    return res
  }

  const challenge = (await app.inject(ROUTE)).json()
  t.match(challenge.accepts[0].extra.payerRule, /delegate \(then x-payment-wallet-signature is required\)/, 'the 402 states who may be named as the payer')
  t.equal((await app.inject('/.well-known/agent.json')).json().proof_payer_rule, challenge.accepts[0].extra.payerRule, 'so does the manifest')

  const unproven = await refused(t, delegate.address, undefined, 'WALLET_SIGNATURE_REQUIRED')
  t.match(unproven.json().message, /as their delegate/, 'the refusal says what the delegate must add')
  await refused(t, owner.address, undefined, 'PAYER_MISMATCH')
  await refused(t, owner.address, owner, 'PAYER_MISMATCH')
  await refused(t, stranger.address, stranger, 'PAYER_MISMATCH')
  await refused(t, delegate.address, stranger, 'WALLET_SIGNATURE_INVALID')

  const delivered = await prove(delegate.address, delegate)
  t.equal(delivered.statusCode, 200, 'the delegate proves with its own wallet signature')
  t.equal(delivered.json().data.mintSymbol, 'SOL')
  const receipt = JSON.parse(Buffer.from(String(delivered.headers['x-payment-response']), 'base64').toString('utf8'))
  t.match(receipt, { success: true, transaction: signature, payer: delegate.address })
  t.equal((await app.store.claims.status(signature))?.status, 'redeemed')
  t.equal((await prove(delegate.address, delegate)).json().code, 'PAYMENT_ALREADY_USED', 'one payment, one delivery')
  t.equal(await tokenBalanceOf(paid, paid.merchant.address), merchantBefore + PRICE, 'nothing else moved')
})
