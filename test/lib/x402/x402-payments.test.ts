import { join } from 'node:path'
import { getBase64EncodedWireTransaction, getTransactionDecoder, signBytes, type Address, type KeyPairSigner, type Signature } from '@solana/kit'
import t, { type Test } from 'tap'
import { createSqliteStore } from '../../../db/sqlite/sqlite-store.js'
import { CATALOGUE } from '../../../lib/catalogue/catalogue.js'
import { createRedelivery } from '../../../lib/contract/redelivery.js'
import { createRpcClient } from '../../../lib/solana/rpc-client.js'
import { loadKeypairWithNodeKey } from '../../../lib/solana/keypair-file.js'
import { x402Network } from '../../../lib/x402/networks.js'
import { createPayerFailureBudget } from '../../../lib/x402/payer-failures.js'
import { createX402Payments, type X402Claim } from '../../../lib/x402/x402-payments.js'
import { feeOf, onChain, until } from '../../fixtures/cluster-merchant.js'
import { startClusterRpc } from '../../fixtures/cluster-rpc.js'
import { startPaidChain, tokenBalanceOf } from '../../fixtures/paid-chain.js'
import { createFeePayer } from '../../fixtures/x402-merchant.js'
import { buildExactPayment } from '../../fixtures/x402-payment.js'
import { testFolder } from '../../fixtures/test-folder.js'

// x402 settlement on its own: verify-and-claim and the settlement state machine of
// lib/x402/x402-payments.ts, against the real SQLite claims store and the local chain behind the
// cluster proxy (a node whose transactions land late, or whose statuses lag). States are read in
// the store, money on the chain.

const PRODUCT = CATALOGUE.products[0]
const PRICE = PRODUCT.price
const RESOURCE = 'http://merchant.test/api/paid'
const LEASE_MS = 30_000

async function x402UnderTest (t: Test, settlementTimeoutMs: number) {
  const paid = await startPaidChain(t)
  const cluster = await startClusterRpc(t, paid.chain.url)
  const { feePayer, feePayerPath } = await createFeePayer(t, paid)
  const store = createSqliteStore(join(testFolder(t), 'store.db'))
  t.teardown(() => store.close())
  const payments = await createX402Payments({
    rpc: createRpcClient(cluster.url, 2000),
    claims: store.claims,
    feePayer,
    feePayerNodeKey: (await loadKeypairWithNodeKey(feePayerPath)).nodeKey,
    network: x402Network('solana-devnet'),
    payTo: paid.merchant.address,
    mint: paid.mint,
    commitment: 'confirmed',
    leaseMs: LEASE_MS,
    settlementTimeoutMs,
    maxTimeoutSeconds: 60,
    maxPriorityFeeLamports: 100_000n,
    payerFailures: createPayerFailureBudget({ limit: 5, windowMs: 60_000 }),
    redeliveryOf: createRedelivery({ claims: store.claims, mode: 'payment', unknownForMs: LEASE_MS }),
    catalogue: CATALOGUE
  })
  const accepted = payments.paymentRequired(PRODUCT.name, RESOURCE).accepts[0]

  const tokenBalance = async (owner: Address) => await tokenBalanceOf(paid, owner)

  return {
    paid,
    cluster,
    store,
    payments,
    feePayer,
    /** A v2 payload of the price from `buyer`, as the official client builds it, and its wire transaction. */
    async payload (buyer: KeyPairSigner) {
      const transaction = await buildExactPayment(paid, { buyer, feePayer: feePayer.address, amount: PRICE })
      return { transaction, payload: { x402Version: 2, resource: { url: RESOURCE }, accepted, payload: { transaction } } }
    },
    async verifyAndClaim (payload: unknown) {
      return await payments.verifyAndClaim(payload, PRODUCT.name, { resource: RESOURCE, flow: 'x402-v2', requestKey: `GET ${RESOURCE}` })
    },
    status: async (signature: string) => (await store.claims.status(signature))?.status,
    async balances (buyer: Address) {
      return {
        buyer: await tokenBalance(buyer),
        merchant: await tokenBalance(paid.merchant.address),
        feePayer: (await paid.chain.rpc.getBalance(feePayer.address, { commitment: 'confirmed' }).send()).value
      }
    },
    tokenBalance
  }
}

function heldOf (result: Awaited<ReturnType<Awaited<ReturnType<typeof x402UnderTest>>['verifyAndClaim']>>): X402Claim {
  if (result.kind !== 'held') throw new Error(`not held: ${JSON.stringify(result)}`)
  return result.payment
}

const ANSWER = { status: 200, contentType: 'application/json', body: '{"delivered":true}', requestKey: `GET ${RESOURCE}`, retentionMs: 60_000 }

t.test('claimed → sent → confirmed → redeemed: the price moves once, the answer is kept, a replay is refused', async (t) => {
  const x = await x402UnderTest(t, 5000)
  const buyer = await x.paid.newBuyer(PRICE * 3n)
  const { payload } = await x.payload(buyer)
  const before = await x.balances(buyer.address)

  const claim = heldOf(await x.verifyAndClaim(payload))
  t.equal(await x.status(claim.signature), 'pending', 'claimed: held, nothing sent')
  t.match(claim, { payer: buyer.address, amount: PRICE, service: PRODUCT.name, flow: 'x402-v2', onChain: false, mayHaveBeenSent: false })
  t.equal(x.cluster.calls('sendTransaction'), 0, 'verification sends nothing')

  // The merchant waits for confirmation once the send was answered: the claim is marked sent by then.
  const release = x.cluster.holdReplies('getSignatureStatuses')
  const settling = x.payments.settle(claim, ANSWER)
  await until(() => x.cluster.calls('getSignatureStatuses') > 0)
  t.equal(await x.status(claim.signature), 'sent', 'sent: marked before the transaction left')
  release()
  const result = await settling
  t.match(result, { kind: 'settled', receipt: { success: true, transaction: claim.signature, network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', payer: buyer.address } })
  t.equal(await x.status(claim.signature), 'redeemed')
  t.match(await x.store.claims.keptAnswer(claim.signature), { body: ANSWER.body, receipt: { transaction: claim.signature } })

  const after = await x.balances(buyer.address)
  t.equal(before.buyer - after.buyer, PRICE, 'the buyer paid the price')
  t.equal(after.merchant - before.merchant, PRICE, 'the merchant received it')
  t.equal(before.feePayer - after.feePayer, await feeOf(x.paid, claim.signature), 'the fee payer paid one fee')

  // The same payload again: in progress while the kept answer is being written, spent once it reached the buyer.
  t.match(await x.verifyAndClaim(payload), { kind: 'refused', code: 'PAYMENT_IN_PROGRESS' }, 'the answer\'s fate not known yet')
  await x.store.audit.record({ requestId: 'r1', service: PRODUCT.name, resource: RESOURCE, payer: buyer.address, signature: claim.signature, amount: PRICE, outcome: 'DELIVERED', verified: true, status: 200, latencyMs: 1, flow: 'x402-v2' }, { reached: true })
  t.match(await x.verifyAndClaim(payload), { kind: 'refused', code: 'PAYMENT_ALREADY_USED' }, 'reached: the payload is spent')
  t.equal(x.cluster.forwardedSends(), 1, 'one transaction reached the chain')
})

t.test('pending when confirmation takes too long, then reconciled by the retry without a second transfer', async (t) => {
  const x = await x402UnderTest(t, 100)
  const buyer = await x.paid.newBuyer(PRICE * 3n)
  const { payload } = await x.payload(buyer)
  const before = await x.balances(buyer.address)
  x.cluster.landAfter(400)

  const claim = heldOf(await x.verifyAndClaim(payload))
  const first = await x.payments.settle(claim, ANSWER)
  t.match(first, { kind: 'refused', code: 'X402_SETTLEMENT_PENDING', retryAfterSeconds: 1 })
  t.equal(await x.status(claim.signature), 'sent', 'kept for the chain to decide, its lease ended')

  await until(async () => (await onChain(x.paid, claim.signature)) !== null)
  const retry = heldOf(await x.verifyAndClaim(payload))
  t.not(retry.claimId, claim.claimId, 'taken over by the retry')
  t.equal(retry.onChain, true, 'the retry asked the chain: it landed')
  const sends = x.cluster.calls('sendTransaction')
  t.match(await x.payments.settle(retry, ANSWER), { kind: 'settled', receipt: { transaction: claim.signature } })
  t.equal(x.cluster.calls('sendTransaction'), sends, 'nothing sent again')
  t.equal(await x.status(claim.signature), 'redeemed')

  t.match(await x.payments.settle(claim, ANSWER), { kind: 'refused', code: 'PAYMENT_IN_PROGRESS' }, 'the first holder, come back late, does not deliver')
  const after = await x.balances(buyer.address)
  t.equal(x.cluster.forwardedSends(), 1, 'one transfer on chain')
  t.equal(before.buyer - after.buyer, PRICE)
  t.equal(after.merchant - before.merchant, PRICE)
})

t.test('failed on chain: the claim is discarded, the merchant got nothing, the fee payer paid the fee', async (t) => {
  const x = await x402UnderTest(t, 5000)
  const buyer = await x.paid.newBuyer(PRICE)
  const elsewhere = await x.paid.newBuyer(0n)
  const { payload } = await x.payload(buyer)
  const before = await x.balances(buyer.address)
  // Lands 1.5 s after the send was answered: time for the buyer's own transfer to land first, on a loaded machine too.
  x.cluster.landAfter(1500)

  const claim = heldOf(await x.verifyAndClaim(payload))
  const settling = x.payments.settle(claim, ANSWER)
  await until(() => x.cluster.calls('getSignatureStatuses') > 0)
  // The buyer moves its tokens away before the merchant's transaction lands.
  await x.paid.pay(buyer, PRICE, { to: elsewhere.address })
  const result = await settling
  t.match(result, { kind: 'refused', code: 'X402_SETTLEMENT_FAILED' })
  t.not((await onChain(x.paid, claim.signature))?.err, null, 'it landed and failed')
  t.equal(await x.status(claim.signature), undefined, 'discarded: nothing moved, nothing held')
  t.equal(await x.store.claims.keptAnswer(claim.signature), undefined)

  const after = await x.balances(buyer.address)
  t.equal(after.merchant, before.merchant, 'the merchant got nothing')
  t.equal(await x.tokenBalance(elsewhere.address), PRICE, 'the tokens went where the buyer sent them')
  t.equal(before.feePayer - after.feePayer, await feeOf(x.paid, claim.signature), 'the fee payer paid the failed transaction\'s fee')
})

/** A holder that marked the claim sent, maybe sent, then died: its lease and its hold of the source end at once. */
async function crashAfterMark (t: Test, x: Awaited<ReturnType<typeof x402UnderTest>>, claim: X402Claim, transaction: string, send: boolean): Promise<void> {
  t.equal(await x.store.claims.markSent({ signature: claim.signature, claimId: claim.claimId, leaseMs: 1, source: claim.transfer.source, holdMs: 1 }), 'sent')
  if (send) {
    const { messageBytes, signatures } = getTransactionDecoder().decode(Buffer.from(transaction, 'base64'))
    const signed = getBase64EncodedWireTransaction({
      messageBytes,
      signatures: { ...signatures, [x.feePayer.address]: new Uint8Array(await signBytes(x.feePayer.keyPair.privateKey, messageBytes)) }
    } as never)
    await x.paid.chain.rpc.sendTransaction(signed, { encoding: 'base64' }).send()
    await until(async () => (await x.paid.chain.rpc.getSignatureStatuses([claim.signature as Signature]).send()).value[0] !== null)
  }
  const markedAt = Date.now()
  await until(() => Date.now() > markedAt + 1)
}

t.test('takeover after a lease ended: the chain is asked first; landed, nothing is sent again', async (t) => {
  const x = await x402UnderTest(t, 5000)
  const buyer = await x.paid.newBuyer(PRICE * 3n)
  const { payload, transaction } = await x.payload(buyer)
  const before = await x.balances(buyer.address)
  const dead = heldOf(await x.verifyAndClaim(payload))
  await crashAfterMark(t, x, dead, transaction, true)
  const statusLooks = x.cluster.calls('getSignatureStatuses')

  const next = heldOf(await x.verifyAndClaim(payload))
  t.equal(next.mayHaveBeenSent, true, 'taken over from a holder that marked it sent')
  t.equal(next.onChain, true, 'the chain says it landed')
  t.ok(x.cluster.calls('getSignatureStatuses') > statusLooks, 'the chain was asked')
  t.match(await x.payments.settle(next, ANSWER), { kind: 'settled', receipt: { transaction: dead.signature } })
  t.equal(x.cluster.calls('sendTransaction'), 0, 'the merchant sent nothing itself')
  t.equal(await x.status(dead.signature), 'redeemed')
  const after = await x.balances(buyer.address)
  t.equal(before.buyer - after.buyer, PRICE, 'paid once')
  t.equal(after.merchant - before.merchant, PRICE)
})

t.test('takeover after a lease ended: unseen on chain, the same transaction is sent and delivers once', async (t) => {
  const x = await x402UnderTest(t, 5000)
  const buyer = await x.paid.newBuyer(PRICE * 3n)
  const { payload, transaction } = await x.payload(buyer)
  const before = await x.balances(buyer.address)
  const dead = heldOf(await x.verifyAndClaim(payload))
  await crashAfterMark(t, x, dead, transaction, false)

  const next = heldOf(await x.verifyAndClaim(payload))
  t.match(next, { mayHaveBeenSent: true, onChain: false }, 'the chain has not seen it')
  t.equal(next.signature, dead.signature, 'the same transaction: it can land once')
  t.match(await x.payments.settle(next, ANSWER), { kind: 'settled' })
  t.equal(x.cluster.forwardedSends(), 1)
  const after = await x.balances(buyer.address)
  t.equal(before.buyer - after.buyer, PRICE)
  t.equal(after.merchant - before.merchant, PRICE)
})

t.test('a claim taken over before settlement: the loser sends nothing, and the payload held elsewhere is in progress', async (t) => {
  const x = await x402UnderTest(t, 5000)
  const buyer = await x.paid.newBuyer(PRICE * 3n)
  const { payload } = await x.payload(buyer)
  const before = await x.balances(buyer.address)
  const claim = heldOf(await x.verifyAndClaim(payload))
  t.match(await x.verifyAndClaim(payload), { kind: 'refused', code: 'PAYMENT_IN_PROGRESS' }, 'a concurrent duplicate')

  const intruder = await x.store.claims.claim({
    signature: claim.signature, claimId: 'intruder', flow: 'x402', service: PRODUCT.name, payer: buyer.address, amount: PRICE, resource: RESOURCE, leaseMs: LEASE_MS, now: Date.now() + 2 * LEASE_MS
  })
  t.same(intruder, { claimed: true, sent: false })
  t.match(await x.payments.settle(claim, ANSWER), { kind: 'refused', code: 'PAYMENT_IN_PROGRESS' })
  t.equal(x.cluster.calls('sendTransaction'), 0, 'nothing sent')
  t.equal(await x.status(claim.signature), 'pending', 'the intruder still holds it')
  t.same(await x.balances(buyer.address), before, 'nothing moved')
})
