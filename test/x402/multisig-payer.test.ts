import { createNoopSigner } from '@solana/kit'
import t from 'tap'
import { createTokenMultisig, multisigExactPayment, payFromMultisig } from '../fixtures/multisig.js'
import { proofHeaders } from '../fixtures/paid-chain.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { paymentRequiredOf, v2Header } from '../fixtures/x402-payment.js'

const ROUTE = '/api/fetch-price/SOL'
const PRICE = 50_000n

// The standard x402 flow from a token account owned by an SPL Token multisig: the exact scheme's
// transfer authority is the payer who signs, and a multisig never signs (its members follow it in
// the TransferChecked). The merchant refuses such a payload before anything moves, and the same
// multisig buys with proof headers: a multisig payer is never left without its delivery.
t.test('x402 from a multisig-owned account: refused before anything moves, then paid with proof headers', async (t) => {
  const m = await startX402Merchant(t)
  const required = paymentRequiredOf((await fetch(`${m.url}${ROUTE}`)).headers)
  const json = async (res: Response) => await res.json() as { code?: string, data?: { mintSymbol?: string } }
  const pay = async (transaction: string) => await fetch(`${m.url}${ROUTE}`, { headers: { 'payment-signature': v2Header(transaction, required.accepts[0], required.resource) } })
  const relayer = await m.paid.chain.createWallet()

  for (const [mOf, n, signing] of [[1, 2, [0]], [2, 3, [0, 2]]] as const) {
    t.test(`${mOf}-of-${n}`, async (t) => {
      const multisig = await createTokenMultisig(m.paid, mOf, n, 1_000_000n)
      const signers = signing.map(i => multisig.members[i])
      const merchantBefore = await m.merchantBalance()
      const feePayerBefore = await m.solBalance(m.feePayer.address)
      const refused = await pay(await multisigExactPayment(m.paid, multisig, signers, m.feePayer.address, PRICE))
      t.equal(refused.status, 402)
      t.equal((await json(refused)).code, 'X402_TRANSACTION_NOT_ALLOWED')
      t.equal(await m.tokenBalance(multisig.address), 1_000_000n, 'the multisig kept its tokens')
      t.equal(await m.merchantBalance(), merchantBefore, 'the merchant received nothing')
      t.equal(await m.solBalance(m.feePayer.address), feePayerBefore, 'the fee payer paid nothing')

      const signature = await payFromMultisig(m.paid, multisig, signers, relayer, PRICE)
      const member = signers[0]
      const res = await fetch(`${m.url}${ROUTE}`, { headers: proofHeaders(signature, member.address) })
      t.equal(res.status, 200, 'the same multisig buys with proof headers, a signing member named')
      t.equal((await json(res)).data?.mintSymbol, 'SOL')
      t.equal(await m.tokenBalance(multisig.address), 1_000_000n - PRICE, 'the price moved once, on chain')
      t.equal(await m.merchantBalance(), merchantBefore + PRICE)
    })
  }

  t.test('the fee payer in the place of a multisig signer is refused, nothing moved', async (t) => {
    const multisig = await createTokenMultisig(m.paid, 1, 2, 1_000_000n)
    const res = await pay(await multisigExactPayment(m.paid, multisig, [createNoopSigner(m.feePayer.address)], m.feePayer.address, PRICE))
    t.equal(res.status, 402)
    t.equal((await json(res)).code, 'X402_FEE_PAYER_EXPOSED')
    t.equal(await m.tokenBalance(multisig.address), 1_000_000n)
  })
})
