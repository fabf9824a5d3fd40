import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import {
  createSolanaRpc,
  getBase58Decoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  isSolanaError,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type Address,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Signature
} from '@solana/kit'
import t from 'tap'
import { postRaw, rpcBatch } from '@token-merchant/localnet/testing/json-rpc'
import { startClusterRpc } from '../../fixtures/cluster-rpc.js'
import { startPaidChain } from '../../fixtures/paid-chain.js'
import { buildExactPayment } from '../../fixtures/x402-payment.js'

const paid = await startPaidChain(t)
const chain = paid.chain.rpc

/** A signed transferChecked of `amount` from the buyer to the merchant, the buyer paying the fee. */
async function transfer (buyer: KeyPairSigner, amount: bigint, blockhash?: { blockhash: string, lastValidBlockHeight: bigint }) {
  const wire = await buildExactPayment(paid, { buyer, feePayer: buyer.address, amount, blockhash }) as Base64EncodedWireTransaction
  const signature = getSignatureFromTransaction(getTransactionDecoder().decode(Buffer.from(wire, 'base64')))
  return { wire, signature }
}

async function tokens (owner: Address) {
  const [ata] = await findAssociatedTokenPda({ owner, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  return BigInt((await chain.getTokenAccountBalance(ata).send()).value.amount)
}

const lamports = async (owner: Address) => (await chain.getBalance(owner).send()).value
const statusOnChain = async (signature: Signature) =>
  (await chain.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()).value[0]

/** Polls until `check` holds; the milliseconds it took. */
async function until (check: () => Promise<boolean>, timeoutMs = 3000) {
  const start = performance.now()
  while (!(await check())) {
    if (performance.now() - start > timeoutMs) throw new Error('timed out')
    await sleep(10)
  }
  return performance.now() - start
}

async function rejection (promise: Promise<unknown>) {
  try {
    await promise
  } catch (error) {
    return error as Error & { cause?: unknown }
  }
  throw new Error('expected a rejection')
}

/** The same sendTransaction request (same id) to the proxy and to the chain: the raw answers must match. */
async function bothAnswers (proxyUrl: string, wire: string) {
  const request = { jsonrpc: '2.0', id: 7, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] }
  return [(await postRaw(proxyUrl, request)).text, (await postRaw(paid.chain.url, request)).text]
}

t.test('landAfter: the signature at once, the transfer on chain later, a second send already processed', async t => {
  const proxy = await startClusterRpc(t, paid.chain.url)
  const rpc = createSolanaRpc(proxy.url)
  const buyer = await paid.newBuyer()
  const merchantBefore = await tokens(paid.merchant.address)
  const { wire, signature } = await transfer(buyer, 250_000n)
  proxy.landAfter(300)

  const start = performance.now()
  t.equal(await rpc.sendTransaction(wire, { encoding: 'base64' }).send(), signature, 'the transaction signature')
  t.ok(performance.now() - start < 200, 'answered at once')
  t.equal(await rpc.sendTransaction(wire, { encoding: 'base64' }).send(), signature, 'sent again while on its way: answered again')
  t.same((await rpc.getSignatureStatuses([signature]).send()).value, [null], 'no status yet')
  t.equal(await tokens(paid.merchant.address), merchantBefore, 'nothing moved yet')
  t.equal(proxy.forwardedSends(), 0, 'nothing reached the chain')

  await until(async () => (await tokens(paid.merchant.address)) === merchantBefore + 250_000n)
  t.ok(performance.now() - start >= 290, 'landed about 300 ms after the answer')
  t.equal(await tokens(buyer.address), 750_000n)
  t.equal((await rpc.getSignatureStatuses([signature]).send()).value[0]?.err, null, 'landed and succeeded')
  await sleep(100)
  t.equal(proxy.forwardedSends(), 1, 'sent twice, landed once')
  t.equal(proxy.calls('sendTransaction'), 2)

  const error = await rejection(rpc.sendTransaction(wire, { encoding: 'base64' }).send())
  t.ok(isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE), 'a preflight failure')
  t.ok(isSolanaError(error.cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED), 'caused by: already processed')
  const [fromProxy, fromChain] = await bothAnswers(proxy.url, wire)
  t.match(JSON.parse(fromProxy), { error: { code: -32002, message: 'Transaction simulation failed: This transaction has already been processed', data: { err: 'AlreadyProcessed' } } })
  t.equal(fromProxy, fromChain, 'byte for byte the answer of the chain')
  t.equal(proxy.forwardedSends(), 1, 'refused sends never reach the chain')
})

t.test('landAfter: a transaction that cannot land is refused at preflight, as the chain refuses it', async t => {
  const proxy = await startClusterRpc(t, paid.chain.url)
  const rpc = createSolanaRpc(proxy.url)
  const buyer = await paid.newBuyer(1_000_000n)
  const solBefore = await lamports(buyer.address)
  proxy.landAfter(300)

  const { wire } = await transfer(buyer, 2_000_000n)
  const error = await rejection(rpc.sendTransaction(wire, { encoding: 'base64' }).send())
  t.ok(isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE), 'a preflight failure')
  t.ok(isSolanaError(error.cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM) && error.cause.context.code === 1 && error.cause.context.index === 2,
    'caused by the token program: insufficient funds (Custom 1) in instruction 2')
  const [fromProxy, fromChain] = await bothAnswers(proxy.url, wire)
  t.match(JSON.parse(fromProxy), { error: { code: -32002, data: { err: { InstructionError: [2, { Custom: 1 }] } } } })
  t.equal(fromProxy, fromChain, 'byte for byte the answer of the chain')

  const stale = await transfer(buyer, 1n, { blockhash: getBase58Decoder().decode(new Uint8Array(32).fill(7)), lastValidBlockHeight: 1000n })
  const staleError = await rejection(rpc.sendTransaction(stale.wire, { encoding: 'base64' }).send())
  t.ok(isSolanaError(staleError.cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND), 'an unknown blockhash: BlockhashNotFound')
  const [staleFromProxy, staleFromChain] = await bothAnswers(proxy.url, stale.wire)
  t.equal(staleFromProxy, staleFromChain, 'byte for byte the answer of the chain')

  await sleep(400)
  t.equal(await tokens(buyer.address), 1_000_000n, 'no token moved')
  t.equal(await lamports(buyer.address), solBefore, 'no fee charged')
  t.equal(proxy.forwardedSends(), 0, 'nothing reached the chain')
})

t.test('landAfter: a transaction that fails when it lands is charged its fee, as on a cluster', async t => {
  const proxy = await startClusterRpc(t, paid.chain.url)
  const buyer = await paid.newBuyer(1_000_000n)
  proxy.landAfter(300)
  const { wire, signature } = await transfer(buyer, 1_000_000n)
  t.equal(await createSolanaRpc(proxy.url).sendTransaction(wire, { encoding: 'base64' }).send(), signature, 'passes preflight')
  await paid.pay(buyer, 1_000_000n) // spends the tokens before it lands
  const solBefore = await lamports(buyer.address)
  await until(async () => (await statusOnChain(signature)) !== null)
  t.same((await statusOnChain(signature))?.err, { InstructionError: [2, { Custom: 1 }] }, 'landed, failed')
  t.ok((await lamports(buyer.address)) < solBefore, 'its fee charged')
  t.equal(await tokens(buyer.address), 0n)
})

t.test('hideStatuses: a lagging node knows no status and no transaction', async t => {
  const proxy = await startClusterRpc(t, paid.chain.url)
  const rpc = createSolanaRpc(proxy.url)
  const { wire, signature } = await transfer(await paid.newBuyer(), 1_000n)
  t.equal(await rpc.sendTransaction(wire, { encoding: 'base64' }).send(), signature)
  t.equal((await statusOnChain(signature))?.err, null, 'passed through: landed at once')

  proxy.hideStatuses(true)
  const statuses = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()
  t.same(statuses.value, [null], 'no status')
  t.equal(typeof statuses.context.slot, 'bigint', 'in a proper envelope')
  t.equal(await rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send(), null, 'no transaction')
  const raw = (await postRaw(proxy.url, { jsonrpc: '2.0', id: 3, method: 'getSignatureStatuses', params: [[signature, signature]] })).body
  t.match(raw, { jsonrpc: '2.0', result: { context: { slot: Number }, value: [null, null] }, id: 3 })

  proxy.hideStatuses(false)
  t.equal((await rpc.getSignatureStatuses([signature]).send()).value[0]?.err, null, 'caught up')
})

t.test('failStatuses: getSignatureStatuses answers HTTP 503', async t => {
  const proxy = await startClusterRpc(t, paid.chain.url)
  const rpc = createSolanaRpc(proxy.url)
  const neverSent = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64))) as Signature
  proxy.failStatuses(true)
  const error = await rejection(rpc.getSignatureStatuses([neverSent]).send())
  t.ok(isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR) && error.context.statusCode === 503, 'a kit transport error, 503')
  t.equal(typeof (await rpc.getSlot().send()), 'bigint', 'other methods answer')
  t.equal(proxy.calls('getSignatureStatuses'), 1)
  proxy.failStatuses(false)
  t.same((await rpc.getSignatureStatuses([neverSent]).send()).value, [null])
})

t.test('delaySendReply: the answer is late, the transfer is not', async t => {
  const proxy = await startClusterRpc(t, paid.chain.url)
  const buyer = await paid.newBuyer()
  const { wire, signature } = await transfer(buyer, 10_000n)
  proxy.delaySendReply(300)
  const start = performance.now()
  let answered = false
  const reply = createSolanaRpc(proxy.url).sendTransaction(wire, { encoding: 'base64' }).send().finally(() => { answered = true })
  await until(async () => (await tokens(buyer.address)) === 990_000n)
  t.notOk(answered, 'landed before the answer came')
  t.equal(await reply, signature)
  t.ok(performance.now() - start >= 290, 'answered about 300 ms late')
  t.equal(proxy.forwardedSends(), 1)
})

t.test('failSendReply: the transfer lands, the client gets a 503', async t => {
  const proxy = await startClusterRpc(t, paid.chain.url)
  const buyer = await paid.newBuyer()
  const { wire, signature } = await transfer(buyer, 10_000n)
  proxy.failSendReply(true)
  const error = await rejection(createSolanaRpc(proxy.url).sendTransaction(wire, { encoding: 'base64' }).send())
  t.ok(isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR) && error.context.statusCode === 503, 'a kit transport error, 503')
  t.equal(await tokens(buyer.address), 990_000n, 'landed anyway')
  t.equal((await statusOnChain(signature))?.err, null)
  t.equal(proxy.forwardedSends(), 1)
})

t.test('batches: each member on its own, answers in order', async t => {
  const proxy = await startClusterRpc(t, paid.chain.url)
  const buyer = await paid.newBuyer(1_000_000n)
  const good = await transfer(buyer, 100_000n)
  const tooMuch = await transfer(buyer, 5_000_000n)
  proxy.landAfter(300)
  const answers = await rpcBatch(proxy.url, [
    { method: 'getSlot' },
    { method: 'sendTransaction', params: [good.wire, { encoding: 'base64' }] },
    { method: 'sendTransaction', params: [tooMuch.wire, { encoding: 'base64' }] },
    { method: 'getSignatureStatuses', params: [[good.signature]] }
  ])
  t.equal(answers.length, 4)
  t.ok(answers.every((answer, i) => i === 0 || answer.id === answers[i - 1].id + 1), 'in order')
  t.type(answers[0].result, 'number')
  t.equal(answers[1].result, good.signature, 'the signature at once')
  t.match(answers[2].error, { code: -32002, data: { err: { InstructionError: [2, { Custom: 1 }] } } }, 'refused at preflight')
  t.same(answers[3].result.value, [null], 'not landed yet')
  t.equal(proxy.calls('sendTransaction'), 2)
  t.equal(proxy.calls('getSignatureStatuses'), 1)
  await until(async () => (await tokens(buyer.address)) === 900_000n)

  proxy.hideStatuses(true)
  const [hidden, balance] = await rpcBatch(proxy.url, [
    { method: 'getSignatureStatuses', params: [[good.signature]] },
    { method: 'getBalance', params: [buyer.address] }
  ])
  t.same(hidden.result.value, [null], 'hidden in a batch')
  t.type(balance.result.value, 'number', 'the other member untouched')
  proxy.failStatuses(true)
  const failed = await postRaw(proxy.url, [{ jsonrpc: '2.0', id: 1, method: 'getSlot' }, { jsonrpc: '2.0', id: 2, method: 'getSignatureStatuses', params: [[good.signature]] }])
  t.equal(failed.status, 503, 'a member failing over HTTP fails the batch')
})

t.test('an upstream answer that is not JSON is a 502', async t => {
  const html = createServer((_request, response) => { response.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>') })
  await new Promise<void>(resolve => html.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => html.close(() => resolve())))
  const proxy = await startClusterRpc(t, `http://127.0.0.1:${(html.address() as AddressInfo).port}`)
  t.equal((await postRaw(proxy.url, { jsonrpc: '2.0', id: 1, method: 'getSlot' })).status, 502)
  t.equal((await postRaw(proxy.url, [{ jsonrpc: '2.0', id: 1, method: 'getSlot' }])).status, 502, 'in a batch too')
})

t.test('teardown drops the sends still waiting to land', async t => {
  const buyer = await paid.newBuyer()
  const { wire, signature } = await transfer(buyer, 10_000n)
  await t.test('a proxy torn down before the transaction lands', async t => {
    const proxy = await startClusterRpc(t, paid.chain.url)
    proxy.landAfter(200)
    t.equal(await createSolanaRpc(proxy.url).sendTransaction(wire, { encoding: 'base64' }).send(), signature)
  })
  await sleep(400)
  t.equal(await statusOnChain(signature), null, 'never landed')
  t.equal(await tokens(buyer.address), 1_000_000n)
})
