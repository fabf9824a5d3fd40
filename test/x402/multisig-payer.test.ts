import { createNoopSigner } from '@solana/kit'
import t from 'tap'
import { createTokenMultisig, multisigExactPayment } from '../fixtures/multisig.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { paymentRequiredOf, v2Header } from '../fixtures/x402-payment.js'

const ROUTE = '/api/fetch-price/SOL'
const PRICE = 50_000n

// The standard x402 flow from a token account owned by an SPL Token multisig: the payload is the
// proof, so no wallet is named; the payer (receipt, failure budget, payment-identifier scope) is
// the transfer's authority, the multisig. Within the two signatures the flow allows (payer and
// fee payer) a 1-of-N multisig pays; one needing more signatures is refused before anything moves.
t.test('x402 from a multisig-owned account', async (t) => {
  const m = await startX402Merchant(t)
  const required = paymentRequiredOf((await fetch(`${m.url}${ROUTE}`)).headers)
  const json = async (res: Response) => await res.json() as { code?: string, message?: string, data?: { mintSymbol?: string } }
  const pay = async (transaction: string) => await fetch(`${m.url}${ROUTE}`, { headers: { 'payment-signature': v2Header(transaction, required.accepts[0], required.resource) } })

  t.test('1-of-2: one member signs, the merchant pays the fee; delivered once, the multisig named as payer', async (t) => {
    const multisig = await createTokenMultisig(m.paid, 1, 2, 1_000_000n)
    const [member] = multisig.members
    const merchantBefore = await m.merchantBalance()
    const memberLamports = await m.solBalance(member.address)
    const transaction = await multisigExactPayment(m.paid, multisig, [member], m.feePayer.address, PRICE)
    const res = await pay(transaction)
    t.equal(res.status, 200, JSON.stringify(res.status === 200 ? {} : await json(res.clone())))
    t.equal((await json(res)).data?.mintSymbol, 'SOL')
    const receipt = JSON.parse(Buffer.from(res.headers.get('payment-response') ?? '', 'base64').toString('utf8'))
    t.match(receipt, { success: true, payer: multisig.address })
    t.equal(await m.tokenBalance(multisig.address), 1_000_000n - PRICE, 'the multisig paid exactly the price, on chain')
    t.equal(await m.merchantBalance(), merchantBefore + PRICE, 'the merchant received it')
    t.equal(await m.solBalance(member.address), memberLamports, 'the member paid no fee')

    const replay = await pay(transaction)
    t.equal(replay.status, 402, 'the same payload buys nothing more')
    t.equal((await json(replay)).code, 'PAYMENT_ALREADY_USED')
    t.equal(await m.tokenBalance(multisig.address), 1_000_000n - PRICE)
  })

  t.test('2-of-3: three signatures are more than the flow allows; refused, nothing moved', async (t) => {
    const multisig = await createTokenMultisig(m.paid, 2, 3, 1_000_000n)
    const merchantBefore = await m.merchantBalance()
    const res = await pay(await multisigExactPayment(m.paid, multisig, [multisig.members[0], multisig.members[2]], m.feePayer.address, PRICE))
    t.equal(res.status, 402)
    const body = await json(res)
    t.equal(body.code, 'X402_TRANSACTION_NOT_ALLOWED')
    t.match(body.message, /proof headers/, 'the message says how such a multisig pays')
    t.equal(await m.tokenBalance(multisig.address), 1_000_000n)
    t.equal(await m.merchantBalance(), merchantBefore)
  })

  t.test('the fee payer in the place of a multisig signer is refused, nothing moved', async (t) => {
    const multisig = await createTokenMultisig(m.paid, 1, 2, 1_000_000n)
    const res = await pay(await multisigExactPayment(m.paid, multisig, [createNoopSigner(m.feePayer.address)], m.feePayer.address, PRICE))
    t.equal(res.status, 402)
    t.equal((await json(res)).code, 'X402_FEE_PAYER_EXPOSED')
    t.equal(await m.tokenBalance(multisig.address), 1_000_000n)
  })
})
