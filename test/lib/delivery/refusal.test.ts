import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { generateKeyPairSigner, type Address } from '@solana/kit'
import t from 'tap'
import {
  FEE_PAYER_UNFUNDED_RETRY_SECONDS, feePayerUnfunded, IN_PROGRESS_RETRY_SECONDS, paymentAlreadyUsed, paymentInProgress, refusal, refusalHeaders,
  refusalOf, refusalText, settlementFailedOnChain, settlementPending
} from '../../../lib/contract/refusal.js'
import { AppError } from '../../../lib/errors/app-error.js'
import { readPaymentProof } from '../../../lib/payment/proof-headers.js'
import { checkLandedPayment, type PaymentTransaction } from '../../../lib/payment/verify-transaction.js'
import { checkWalletSignature } from '../../../lib/payment/wallet-signature.js'
import { readPaymentId } from '../../../lib/x402/payment-identifier.js'
import { decodePaymentHeader, readPaymentPayload } from '../../../lib/x402/payment-payload.js'
import { checkPayloadTransfer } from '../../../lib/x402/transaction-rules.js'
import { PROJECT_ROOT } from '../../../project.js'

const SIGNATURE = '5'.repeat(88)
const WALLET = 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx'

t.test('a refusal: kind "refused", the status of its code from the table unless a door says otherwise, Retry-After only when set', async t => {
  t.same(refusal('PAYMENT_ALREADY_USED', 'spent'), { kind: 'refused', code: 'PAYMENT_ALREADY_USED', statusCode: 402, message: 'spent' })
  t.same(refusal('RPC_UNAVAILABLE', 'down', { retryAfterSeconds: 5, details: { role: 'payment' } }),
    { kind: 'refused', code: 'RPC_UNAVAILABLE', statusCode: 503, message: 'down', retryAfterSeconds: 5, details: { role: 'payment' } })
  t.equal(refusal('PAYMENT_REQUIRED', 'pay', { statusCode: 400 }).statusCode, 400)
  t.same(refusalHeaders(refusal('PAYMENT_FAILED', 'failed')), {})
  t.same(refusalHeaders(paymentInProgress('x402-held')), { 'retry-after': '1' })
})

t.test('a thrown error as a refusal: ours keep code and Retry-After, a node failure is RPC_UNAVAILABLE, a bug is no refusal', async t => {
  const limited = refusalOf(new AppError('RATE_LIMITED', 'slow down', { headers: { 'retry-after': '7' }, details: { retryAfterSeconds: 7 } }))
  t.match(limited, { kind: 'refused', code: 'RATE_LIMITED', statusCode: 429, message: 'slow down', retryAfterSeconds: 7, details: { retryAfterSeconds: 7 } })
  t.match(refusalOf(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) })),
    { kind: 'refused', code: 'RPC_UNAVAILABLE', statusCode: 503 })
  t.equal(refusalOf(new Error('a bug')), undefined)
  t.equal(refusalOf('not even an error'), undefined)
})

t.test('one line of text per refusal for the doors that have only text: code first, the wait as the door says it', async t => {
  t.equal(refusalText(refusal('X402_AMOUNT_MISMATCH', 'too little')), 'X402_AMOUNT_MISMATCH: too little')
  t.equal(refusalText(paymentInProgress('x402-held')), 'PAYMENT_IN_PROGRESS: Another request is being served with this payment; retry the same payment shortly (retry in 1 s)')
  t.equal(refusalText(settlementPending('sig', 30), 'retry the same payment'),
    'X402_SETTLEMENT_PENDING: The payment sig was sent but is not confirmed yet; retry the same payment after 30 s: it is delivered once it landed, never charged twice (retry the same payment in 30 s)')
})

t.test('the shared refusals: one message each, the retry seconds from one place', async t => {
  for (const situation of ['x402-held', 'source-busy', 'proof-held', 'proof-taken-over', 'no-longer-held', 'being-delivered'] as const) {
    t.match(paymentInProgress(situation), { kind: 'refused', code: 'PAYMENT_IN_PROGRESS', statusCode: 409, retryAfterSeconds: IN_PROGRESS_RETRY_SECONDS }, situation)
  }
  t.equal(new Set(['x402', 'claimed-as-proof', 'proof'].map(by => paymentAlreadyUsed(by as 'x402').message)).size, 3, 'each situation says its own next step')
  t.match(feePayerUnfunded(), { code: 'X402_FEE_PAYER_UNFUNDED', statusCode: 503, retryAfterSeconds: FEE_PAYER_UNFUNDED_RETRY_SECONDS })
  t.equal(settlementFailedOnChain('x'.repeat(500)).message.length, 'the transaction failed on chain (); your tokens did not move'.length + 200, 'the chain\'s error is cut at 200 characters')
})

t.test('every step answers a union discriminated by kind, a refusal being its "refused" member', async t => {
  t.match(decodePaymentHeader('not base64!'), { kind: 'refused', code: 'X402_INVALID_PAYLOAD' })
  t.same(decodePaymentHeader(Buffer.from('{"a":1}').toString('base64')), { kind: 'decoded', payload: { a: 1 } })

  t.match(readPaymentPayload({ x402Version: 3 }), { kind: 'refused', code: 'X402_UNSUPPORTED' })
  t.match(readPaymentPayload({ x402Version: 1, scheme: 'exact', network: 'solana-devnet', payload: {} }), { kind: 'refused', code: 'X402_INVALID_PAYLOAD' })
  t.match(readPaymentPayload({ x402Version: 1, scheme: 'exact', network: 'solana-devnet', payload: { transaction: 'AQ==' } }, 1),
    { kind: 'read', input: { x402Version: 1, scheme: 'exact', network: 'solana-devnet', transaction: 'AQ==' } })

  const feePayer = await generateKeyPairSigner()
  const wallet = WALLET as Address
  const terms = { feePayer: feePayer.address, mint: wallet, amount: 1n, destinations: { token: wallet, token2022: wallet }, maxPriorityFeeLamports: 10_000n, x402Version: 2 as const }
  t.match(checkPayloadTransfer('%%%', terms), { kind: 'refused', code: 'X402_INVALID_PAYLOAD' })
  t.match(checkPayloadTransfer('AQID', terms), { kind: 'refused', code: 'X402_INVALID_PAYLOAD' })

  t.same(readPaymentProof({}), { kind: 'absent' })
  t.same(readPaymentProof({ 'x-payment-signature': SIGNATURE, 'x-payment-wallet': WALLET }), { kind: 'proof', proof: { signature: SIGNATURE, wallet: WALLET } })
  t.match(readPaymentProof({ 'x-payment-signature': SIGNATURE }),
    { kind: 'refused', code: 'INVALID_PAYMENT_HEADER', statusCode: 402, details: { invalidHeaders: ['x-payment-wallet'] } })

  const request = { method: 'GET', path: '/api/fetch-price/SOL' }
  const proof = { signature: SIGNATURE, wallet: WALLET as never }
  t.equal(await checkWalletSignature(undefined, proof, request, false), undefined, 'a check that passes says nothing')
  t.match(await checkWalletSignature(undefined, proof, request, true), { kind: 'refused', code: 'WALLET_SIGNATURE_REQUIRED' })
  t.match(await checkWalletSignature('1'.repeat(88), proof, request, false), { kind: 'refused', code: 'WALLET_SIGNATURE_INVALID' })

  t.same(readPaymentId({}), { kind: 'payment-id', id: undefined })
  t.same(readPaymentId({ extensions: { 'payment-identifier': { info: { required: false, id: 'pay_0123456789abcdef' } } } }), { kind: 'payment-id', id: 'pay_0123456789abcdef' })
  t.match(readPaymentId({ extensions: { 'payment-identifier': { info: { required: false, id: 'short' } } } }), { kind: 'refused', code: 'X402_PAYMENT_ID_INVALID' })

  const landed = (postAmount: string, blockTime: number | null = 1_000): PaymentTransaction => ({
    blockTime,
    meta: {
      err: null,
      preTokenBalances: [{ accountIndex: 1, mint: 'M', owner: 'BUYER', uiTokenAmount: { amount: '100' } }, { accountIndex: 2, mint: 'M', owner: 'MERCHANT', uiTokenAmount: { amount: '0' } }],
      postTokenBalances: [{ accountIndex: 1, mint: 'M', owner: 'BUYER', uiTokenAmount: { amount: String(100 - Number(postAmount)) } }, { accountIndex: 2, mint: 'M', owner: 'MERCHANT', uiTokenAmount: { amount: postAmount } }]
    },
    transaction: { message: { accountKeys: ['BUYER', 'SOURCE', 'DESTINATION'], header: { numRequiredSignatures: 1 } } }
  })
  const expected = { payer: 'BUYER', payTo: 'MERCHANT', mint: 'M', price: 50n, maxAgeSeconds: 900, nowSeconds: 1_010 }
  t.same(checkLandedPayment(landed('60'), expected), { kind: 'paid', paid: 60n, blockTime: 1_000 })
  t.match(checkLandedPayment(landed('10'), expected), { kind: 'refused', code: 'AMOUNT_TOO_LOW', details: { paid: '10', required: '50' } })
  t.match(checkLandedPayment(landed('60'), { ...expected, payer: 'STRANGER' }), { kind: 'refused', code: 'PAYER_MISMATCH' })
  t.match(checkLandedPayment(landed('60'), { ...expected, nowSeconds: 5_000 }), { kind: 'refused', code: 'PAYMENT_EXPIRED', details: { maxAgeSeconds: 900 } })
  t.match(checkLandedPayment({ ...landed('60'), meta: null }, expected), { kind: 'refused', code: 'PAYMENT_NOT_FOUND' })
})

/** The project's own source files under `folder`. */
function sources (folder: string): string[] {
  return readdirSync(join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter(file => file.endsWith('.ts')).map(file => join(PROJECT_ROOT, folder, file))
}

t.test('one carrier and one test: no other shape of "refused" is built or tested for in the service or the client', async t => {
  const others = /'rejection' in|\brejection:|refused: true|'refused' in|\.refused [!=]==|'absent' in|'redelivered' in|X402Rejection|PaymentRejection/
  for (const file of [...sources('lib'), ...sources('client'), ...sources('plugins')]) {
    const lines = readFileSync(file, 'utf8').split('\n').filter(line => !line.trimStart().startsWith('//') && !line.trimStart().startsWith('*'))
    t.same(lines.filter(line => others.test(line)), [], relative(PROJECT_ROOT, file))
  }
})

t.test('each shared message is written once: the in-progress and already-used refusals are built in refusal.ts only', async t => {
  const built = /refusal\('(PAYMENT_IN_PROGRESS|PAYMENT_ALREADY_USED|X402_FEE_PAYER_UNFUNDED|X402_SETTLEMENT_PENDING|PAYMENT_ID_CONFLICT)'/
  const builders = [...sources('lib'), ...sources('plugins')].filter(file => built.test(readFileSync(file, 'utf8'))).map(file => relative(PROJECT_ROOT, file))
  t.same(builders, ['lib/contract/refusal.ts'])
})
