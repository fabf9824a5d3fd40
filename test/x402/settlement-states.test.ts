import { setTimeout as sleep } from 'node:timers/promises'
import {
  createSolanaRpc,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  isSolanaError,
  signBytes,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED
} from '@solana/kit'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { AppError } from '../../lib/errors/app-error.js'
import { BUYER_TOKENS, DATA, feeOf, onChain, PRICE, startMerchant, until } from '../fixtures/cluster-merchant.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { sqliteOf } from '../helper.js'

const claimStatus = async (app: FastifyInstance, signature: string) => (await app.store.claims.status(signature))?.status

t.test('a landed transaction is never read as refused: re-sends the node calls AlreadyProcessed are sends', async (t) => {
  const m = await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '300' })
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const { header, signature, tx } = await m.payment(buyer)
  const before = await m.balances(buyer.address)
  m.cluster.landAfter(50)

  // The node cannot tell the status: the merchant cannot know it landed.
  m.cluster.failStatuses(true)
  const first = await m.get(header)
  t.equal(first.status, 503)
  t.equal(first.code, 'X402_SETTLEMENT_PENDING', first.message)
  t.ok(Number(first.retryAfter) >= 1, 'Retry-After')
  t.equal(first.receipt, null, 'no receipt')
  t.notOk('delivered' in first.body, 'no data')
  await until(async () => (await onChain(m.paid, signature)) !== null)
  t.equal((await onChain(m.paid, signature))?.err, null, 'landed, and succeeded')
  t.equal(await claimStatus(m.app, signature), 'sent', 'the claim is kept for the chain to decide')

  // Retried while the node still cannot say: not a 402, the claim kept, and the buyer is not told
  // that nothing was charged (the tokens moved: a buyer who believed it would pay a second time).
  const unknown = await m.get(header)
  m.cluster.failStatuses(false)
  t.equal(unknown.status, 503, 'the node cannot tell: 503, not 402')
  t.equal(unknown.code, 'X402_SETTLEMENT_PENDING', unknown.message)
  t.notOk('delivered' in unknown.body)
  t.equal(await claimStatus(m.app, signature), 'sent', 'still kept for the chain to decide')
  t.notMatch(unknown.message, /nothing was charged/, 'no claim that nothing was charged, after the money moved')

  // A lagging node: the retry finds no status, re-sends, and the node says AlreadyProcessed.
  m.cluster.hideStatuses(true)
  for (let i = 0; i < 3; i++) {
    const sends = m.cluster.calls('sendTransaction')
    const retry = await m.get(header)
    t.equal(retry.status, 503, `retry ${i + 1}: not a 402`)
    t.equal(retry.code, 'X402_SETTLEMENT_PENDING', retry.message)
    t.equal(retry.receipt, null)
    t.notOk('delivered' in retry.body)
    t.equal(m.cluster.calls('sendTransaction'), sends + 1, 'it was sent again')
    t.equal(await claimStatus(m.app, signature), 'sent')
  }
  t.equal(m.cluster.forwardedSends(), 1, 'landed once')

  // What the node answered those re-sends: the chain already holds the transaction.
  const { messageBytes, signatures } = getTransactionDecoder().decode(Buffer.from(tx, 'base64'))
  const signed = getBase64EncodedWireTransaction({
    messageBytes,
    signatures: { ...signatures, [m.feePayer.address]: new Uint8Array(await signBytes(m.feePayer.keyPair.privateKey, messageBytes)) }
  } as never)
  const refused = await createSolanaRpc(m.cluster.url).sendTransaction(signed, { encoding: 'base64' }).send().then(() => undefined, (error: unknown) => error)
  t.ok(isSolanaError(refused, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE) &&
    isSolanaError(refused.cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED), 'the node answers a re-send: AlreadyProcessed')

  m.cluster.hideStatuses(false)
  const delivered = await m.get(header)
  t.equal(delivered.status, 200, 'delivered once the node sees it')
  t.same(delivered.body, DATA)
  t.match(delivered.receipt, { success: true, transaction: signature, payer: buyer.address })
  t.equal(await claimStatus(m.app, signature), 'redeemed')
  const again = await m.get(header)
  t.equal(again.status, 402)
  t.equal(again.code, 'PAYMENT_ALREADY_USED')

  const after = await m.balances(buyer.address)
  t.equal(m.cluster.forwardedSends(), 1, 'one transfer reached the chain')
  t.equal(after.merchant - before.merchant, PRICE, 'the merchant got the price once')
  t.equal(before.buyer - after.buyer, PRICE, 'the buyer paid it once')
  t.equal(before.feePayer - after.feePayer, await feeOf(m.paid, signature), 'the fee payer paid one fee')
})

t.test('pending, then a lagging node: 503 pending until the node sees it, then the delivery, once', async (t) => {
  const m = await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '100' })
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const { header, signature } = await m.payment(buyer)
  const before = await m.balances(buyer.address)
  m.cluster.landAfter(400)

  const first = await m.get(header)
  t.equal(first.status, 503)
  t.equal(first.code, 'X402_SETTLEMENT_PENDING', first.message)
  t.ok(Number(first.retryAfter) >= 1, 'Retry-After')
  t.equal(first.receipt, null)
  t.notOk('delivered' in first.body)

  m.cluster.hideStatuses(true)
  const early = await m.get(header)
  t.equal(early.status, 503, 'still on its way: pending, not 402')
  t.equal(early.code, 'X402_SETTLEMENT_PENDING', early.message)
  t.notOk('delivered' in early.body)

  await until(async () => (await onChain(m.paid, signature)) !== null)
  t.equal((await onChain(m.paid, signature))?.err, null, 'landed')
  for (let i = 0; i < 2; i++) {
    const lagging = await m.get(header)
    t.equal(lagging.status, 503, 'landed, the node lags: pending, not 402')
    t.equal(lagging.code, 'X402_SETTLEMENT_PENDING', lagging.message)
    t.equal(lagging.receipt, null)
    t.notOk('delivered' in lagging.body)
  }

  m.cluster.hideStatuses(false)
  const delivered = await m.get(header)
  t.equal(delivered.status, 200)
  t.same(delivered.body, DATA)
  t.match(delivered.receipt, { success: true, transaction: signature, payer: buyer.address }, 'PAYMENT-RESPONSE')
  const again = await m.get(header)
  t.equal(again.status, 402)
  t.equal(again.code, 'PAYMENT_ALREADY_USED')

  await sleep(500) // a re-send still waiting to land would land by now
  const after = await m.balances(buyer.address)
  t.equal(m.cluster.forwardedSends(), 1, 'one transfer on chain')
  t.equal(after.merchant - before.merchant, PRICE)
  t.equal(before.buyer - after.buyer, PRICE)
  t.equal(before.feePayer - after.feePayer, await feeOf(m.paid, signature), 'one fee')
})

t.test('pending, then one transient handler error on the retry: the handler\'s 503, then the delivery; never a 402', async (t) => {
  const m = await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '100' })
  let failNext = false
  let handled = 0
  m.route.handler = async () => {
    handled++
    if (failNext) {
      failNext = false
      throw new AppError('UPSTREAM_UNAVAILABLE', 'the price source is busy', { headers: { 'retry-after': '1' } })
    }
    return DATA
  }
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const { header, signature } = await m.payment(buyer)
  const before = await m.balances(buyer.address)
  m.cluster.landAfter(300)

  const first = await m.get(header)
  t.equal(first.status, 503)
  t.equal(first.code, 'X402_SETTLEMENT_PENDING', first.message)
  t.notOk('delivered' in first.body)
  await until(async () => (await onChain(m.paid, signature)) !== null)
  t.equal((await m.balances(buyer.address)).merchant - before.merchant, PRICE, 'the tokens moved')

  failNext = true
  const failed = await m.get(header)
  t.equal(failed.status, 503, 'the handler\'s answer')
  t.equal(failed.code, 'UPSTREAM_UNAVAILABLE', failed.message)
  t.equal(failed.receipt, null)
  t.notOk('delivered' in failed.body)
  t.equal(await claimStatus(m.app, signature), 'sent', 'the handler\'s failure did not free a payment whose money moved')

  const delivered = await m.get(header)
  t.equal(delivered.status, 200)
  t.same(delivered.body, DATA)
  t.match(delivered.receipt, { success: true, transaction: signature })
  const again = await m.get(header)
  t.equal(again.status, 402)
  t.equal(again.code, 'PAYMENT_ALREADY_USED')
  t.equal(handled, 3, 'the handler ran for the pending answer, the failure and the delivery')

  const after = await m.balances(buyer.address)
  t.equal(m.cluster.forwardedSends(), 1, 'one transfer')
  t.equal(after.merchant - before.merchant, PRICE)
  t.equal(before.buyer - after.buyer, PRICE)
  t.equal(before.feePayer - after.feePayer, await feeOf(m.paid, signature))
})

t.test('a holder that lost its claim never delivers and sends nothing', async (t) => {
  const m = await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '1000' })
  let entered!: () => void
  const inHandler = new Promise<void>(resolve => { entered = resolve })
  let unblock!: () => void
  const blocked = new Promise<void>(resolve => { unblock = resolve })
  m.route.handler = async () => {
    entered()
    await blocked
    return DATA
  }
  const buyer = await m.paid.newBuyer(BUYER_TOKENS)
  const { header, signature } = await m.payment(buyer)
  const before = await m.balances(buyer.address)

  const answer = m.get(header)
  await inHandler
  const stored = sqliteOf(m.app).prepare('SELECT signature FROM payment_claims WHERE payer = ?').pluck().get(buyer.address) as string
  t.equal(stored, signature, 'the claim is on the transaction id, the fee payer\'s signature')
  // A time far in the future: the holder's lease looks expired, the intruder takes the claim over.
  const taken = await m.app.store.claims.claim({
    signature: stored, claimId: 'intruder', flow: 'x402', service: 'fetch-price', payer: buyer.address, amount: PRICE, resource: '/test/paid', leaseMs: 60_000, now: Date.now() + 10 * 60_000
  })
  t.same(taken, { claimed: true, sent: false }, 'taken over')
  unblock()

  const res = await answer
  t.equal(res.status, 409)
  t.equal(res.code, 'PAYMENT_IN_PROGRESS', res.message)
  t.notOk('delivered' in res.body, 'no data')
  t.equal(res.receipt, null, 'no receipt')

  await sleep(300)
  t.equal(m.cluster.calls('sendTransaction'), 0, 'it sent nothing')
  t.equal(m.cluster.forwardedSends(), 0)
  t.equal(await onChain(m.paid, signature), null, 'nothing on chain')
  t.same(await m.balances(buyer.address), before, 'no token and no lamport moved')
  t.same(sqliteOf(m.app).prepare('SELECT claim_id AS claimId, status FROM payment_claims WHERE signature = ?').get(signature),
    { claimId: 'intruder', status: 'pending' }, 'the intruder still holds it, untouched by the loser')
})

t.test('failed on chain: 402 X402_SETTLEMENT_FAILED, balances as the chain says, the claim gone, a new payment works', async (t) => {
  const m = await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '1000' })
  const buyer = await m.paid.newBuyer(PRICE)
  const elsewhere = await m.paid.newBuyer(0n)
  const { header, signature } = await m.payment(buyer)
  const before = await m.balances(buyer.address)
  m.cluster.landAfter(400)

  // The merchant waits for confirmation only once the node's preflight passed and answered.
  const statusLooks = m.cluster.calls('getSignatureStatuses')
  const answer = m.get(header)
  await until(() => m.cluster.calls('getSignatureStatuses') > statusLooks)
  t.equal(m.cluster.calls('sendTransaction'), 1, 'sent, preflight passed')
  // The buyer moves its tokens away on the chain before the merchant's transaction lands.
  await m.paid.pay(buyer, PRICE, { to: elsewhere.address })
  t.equal(await onChain(m.paid, signature), null, 'the merchant\'s transaction had not landed yet')

  const res = await answer
  t.equal(res.status, 402)
  t.equal(res.code, 'X402_SETTLEMENT_FAILED', res.message)
  t.match(res.message, /failed on chain/)
  t.match(res.message, /did not move/)
  t.equal(res.receipt, null)
  t.notOk('delivered' in res.body)
  t.not((await onChain(m.paid, signature))?.err, null, 'it landed and failed')
  t.equal(m.cluster.forwardedSends(), 1)

  const after = await m.balances(buyer.address)
  t.equal(after.buyer, 0n, 'the buyer\'s tokens went where the buyer sent them')
  t.equal(await m.tokenBalance(elsewhere.address), PRICE)
  t.equal(after.merchant, before.merchant, 'the merchant got nothing')
  t.equal(before.feePayer - after.feePayer, await feeOf(m.paid, signature), 'the fee payer paid the failed transaction\'s fee, as on a cluster')
  t.equal(await claimStatus(m.app, signature), undefined, 'the claim is gone')

  // The failed payload again moves nothing (its transaction can never land twice).
  await m.paid.chain.mintTo(m.paid.mint, buyer.address, PRICE)
  const replay = await m.get(header)
  t.equal(replay.status, 402, `the failed payload again: ${replay.code ?? ''}`)
  t.notOk('delivered' in replay.body)

  // Two failed settlements used up the wallet's budget (X402_PAYER_FAILURE_LIMIT): its next payment
  // is refused before any RPC call, while another wallet pays as usual.
  const blocked = await m.get((await m.payment(buyer)).header)
  t.equal(blocked.status, 429)
  t.equal(blocked.code, 'PAYER_BLOCKED')
  const other = await m.paid.newBuyer(PRICE)
  const fresh = await m.payment(other)
  const paidAgain = await m.get(fresh.header)
  t.equal(paidAgain.status, 200, 'a new payment works')
  t.same(paidAgain.body, DATA)
  t.match(paidAgain.receipt, { success: true, transaction: fresh.signature })
  const last = await m.balances(buyer.address)
  t.equal(last.buyer, PRICE, 'the blocked wallet kept its tokens')
  t.equal(last.merchant - before.merchant, PRICE, 'the merchant got the price once, for the new payment')
})

// Ten payloads from one wallet that holds the price once: each verifies against the same balance.
// One settlement in flight per source token account (held in the store, so across instances too):
// the first is sent and lands; the next ones wait for it, then their preflight at `processed` sees
// the real balance and refuses them before the fee payer signs anything that could fail on chain.
for (const instances of [1, 2]) {
  t.test(`ten pipelined payloads from one balance${instances === 2 ? ', over two instances sharing PostgreSQL' : ''}: one delivery, no transaction failed on chain`, async t => {
    const env: Record<string, string> = { X402_SETTLEMENT_TIMEOUT_MS: '3000', PAYMENT_LEASE_SECONDS: '8', PROOF_FAILURE_LIMIT: '0' }
    if (instances === 2) {
      env.DATABASE_URL = await (await startTestPostgres(t)).createDatabase(t)
      // Behind one public address, as a load balancer would put them: the payload names that resource.
      env.PUBLIC_BASE_URL = 'https://merchant.example'
    }
    const m = await startMerchant(t, env, instances)
    m.cluster.landAfter(400)
    const buyer = await m.paid.newBuyer(PRICE)
    const payments = await Promise.all(Array.from({ length: 10 }, async () => await m.payment(buyer)))
    const before = await m.balances(buyer.address)
    const answers = await Promise.all(payments.map(async (payment, i) => await m.get(payment.header, m.urls[i % instances])))
    t.equal(answers.filter(answer => answer.status === 200).length, 1, 'one delivery')
    const others = new Set(answers.filter(answer => answer.status !== 200).map(answer => `${answer.status} ${answer.code ?? ''}`))
    t.ok([...others].every(other => ['402 X402_SETTLEMENT_FAILED', '409 PAYMENT_IN_PROGRESS'].includes(other)), `the others are refused before sending: ${[...others].join(', ')}`)
    await sleep(600) // anything sent meanwhile has landed
    t.equal(m.cluster.forwardedSends(), 1, 'one transaction reached the chain')
    const after = await m.balances(buyer.address)
    t.equal(before.buyer - after.buyer, PRICE, 'the buyer paid once')
    t.equal(after.merchant - before.merchant, PRICE, 'the merchant got the price once')
    const delivered = payments[answers.findIndex(answer => answer.status === 200)]
    t.equal(before.feePayer - after.feePayer, await feeOf(m.paid, delivered.signature), 'the fee payer paid for the one that landed, nothing else')
  })
}

// The redeem of a delivered payment ends the hold of its source token account: the wallet's next
// payment settles at once. Were the hold left, it would outlast the settlement timeout (3 s here)
// and the next payment would be answered 409 PAYMENT_IN_PROGRESS.
t.test('a delivered payment frees its token account: the same wallet pays three times in a row, each settled once', async t => {
  const m = await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '3000', PAYMENT_LEASE_SECONDS: '8' })
  const buyer = await m.paid.newBuyer(3n * PRICE)
  const before = await m.balances(buyer.address)
  let fees = 0n
  for (let i = 0; i < 3; i++) {
    const payment = await m.payment(buyer)
    const answer = await m.get(payment.header)
    t.equal(answer.status, 200, `payment ${i + 1} delivered (${answer.code ?? ''})`)
    fees += await feeOf(m.paid, payment.signature)
  }
  const after = await m.balances(buyer.address)
  t.equal(before.buyer - after.buyer, 3n * PRICE, 'the buyer paid three times, once each')
  t.equal(after.merchant - before.merchant, 3n * PRICE, 'the merchant got three prices')
  t.equal(before.feePayer - after.feePayer, fees, 'the fee payer paid the three fees, nothing else')
  t.equal(m.cluster.forwardedSends(), 3, 'three transactions reached the chain')
})

// The zero-cost drain: the attacker's payloads verify, and while the first is landing the attacker
// moves its tokens to a second wallet, so it fails on chain at the fee payer's expense; the next
// round it moves them back and tries again. Failed settlements count against the wallet.
t.test('three rounds of the zero-cost drain: at most one transaction a round fails on chain, then the wallet is refused before settlement', async t => {
  const m = await startMerchant(t, { X402_SETTLEMENT_TIMEOUT_MS: '3000', PAYMENT_LEASE_SECONDS: '8', PROOF_FAILURE_LIMIT: '0' })
  m.cluster.landAfter(400)
  const attacker = await m.paid.newBuyer(PRICE)
  const stash = await m.paid.chain.createWallet()
  await m.paid.chain.createAta(m.paid.mint, stash.address)
  const before = await m.balances(attacker.address)
  const codes: string[] = []
  for (let round = 0; round < 3; round++) {
    const payments = await Promise.all(Array.from({ length: 10 }, async () => await m.payment(attacker)))
    const sendsBefore = m.cluster.calls('sendTransaction')
    const answers = Promise.all(payments.map(async payment => await m.get(payment.header)))
    // As soon as the merchant sent the first one (it lands 400 ms later), the tokens leave.
    const deadline = Date.now() + 3000
    while (m.cluster.calls('sendTransaction') === sendsBefore && Date.now() < deadline) await sleep(5)
    if (m.cluster.calls('sendTransaction') > sendsBefore) await m.paid.pay(attacker, PRICE, { to: stash.address })
    for (const answer of await answers) codes.push(`${answer.status} ${answer.code ?? ''}`)
    t.equal((await answers).filter(answer => answer.status === 200).length, 0, `round ${round}: nothing delivered`)
    await sleep(600)
    // The tokens come back for the next round.
    if (await m.tokenBalance(stash.address) > 0n) await m.paid.pay(stash, PRICE, { to: attacker.address })
  }
  const after = await m.balances(attacker.address)
  const failedOnChain = m.cluster.forwardedSends()
  t.ok(failedOnChain <= 1, `at most one transaction reached the chain, and failed there (${failedOnChain})`)
  t.equal(after.merchant, before.merchant, 'the merchant got nothing')
  t.ok(before.feePayer - after.feePayer <= BigInt(failedOnChain) * 10_001n, `the fee payer lost at most that one fee (${before.feePayer - after.feePayer} lamports)`)
  t.ok(codes.slice(20).every(code => code === '429 PAYER_BLOCKED'), 'the last round is refused before settlement: 429 PAYER_BLOCKED')
  t.ok(codes.every(code => ['402 X402_SETTLEMENT_FAILED', '409 PAYMENT_IN_PROGRESS', '429 PAYER_BLOCKED'].includes(code)), `every answer says why: ${[...new Set(codes)].join(', ')}`)
})
