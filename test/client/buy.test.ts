import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateKeyPairSigner, type Address } from '@solana/kit'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import t from 'tap'
import { buy, getManifest, isBuyerError, type BuyStep } from '../../client/index.js'
import { preparePayment, sendPayment, waitForConfirmation } from '../../client/payment.js'
import { readPaymentRequirement } from '../../client/requirements.js'
import { startDemoEnvironment } from '../../demo/environment.js'
import { PRICE_PATH } from '@token-merchant/localnet/price-api'

/**
 * A JSON-RPC pass-through between the merchant and the local chain that can answer the next
 * getTransaction calls itself: `null` (not visible yet) or "node unhealthy" (-32005).
 */
async function startRpcGap () {
  let target = ''
  const planned: Array<'not-found' | 'unavailable'> = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      const call = JSON.parse(body) as { id?: unknown, method?: string }
      if (call.method === 'getTransaction' && planned.length > 0) {
        const answer = planned.shift() === 'unavailable'
          ? { error: { code: -32005, message: 'Node is unhealthy' } }
          : { result: null }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...answer }))
        return
      }
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async upstream => response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text()))
        .catch(() => response.writeHead(502).end())
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwardTo (url: string) { target = url },
    next (...answers: Array<'not-found' | 'unavailable'>) { planned.push(...answers) },
    stop: () => new Promise<void>(resolve => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

const gap = await startRpcGap()
t.teardown(() => gap.stop())
// PRICE_CACHE_TTL_MS=0: every delivery asks the stand-in, so a failure planned there always hits.
const env = await startDemoEnvironment({
  merchantEnv: { PRICE_CACHE_TTL_MS: '0' },
  merchantRpcUrl: localnetUrl => { gap.forwardTo(localnetUrl); return gap.url }
})
t.teardown(() => env.stop())
const { net, priceApi, merchant, mint } = env
const manifest = await getManifest(merchant.url)
const priceUrl = `${merchant.url}/api/fetch-price/SOL`
const PRICE = 50_000n

async function signaturesOf (address: Address): Promise<string[]> {
  return (await net.rpc.getSignaturesForAddress(address).send()).map(s => s.signature)
}

async function usdcOf (owner: Address): Promise<bigint> {
  const [account] = await findAssociatedTokenPda({ mint, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  const { value } = await net.rpc.getAccountInfo(account, { encoding: 'base64' }).send()
  return value === null ? 0n : BigInt((await net.rpc.getTokenAccountBalance(account).send()).value.amount)
}

/** Runs a purchase, recording its steps and what it moved on chain. */
async function purchase (options: { usdc?: bigint, url?: string } & Partial<Parameters<typeof buy>[1]> = {}) {
  const signer = options.signer ?? await env.createBuyer(options.usdc ?? 1_000_000n)
  const steps: BuyStep[] = []
  const before = { signatures: await signaturesOf(signer.address), buyer: await usdcOf(signer.address), merchant: await usdcOf(merchant.signer.address) }
  const outcome = await buy(options.url ?? priceUrl, { rpc: net.rpc, manifest, retryDelayMs: 50, ...options, signer, onStep: step => steps.push(step) })
    .then(result => ({ result, error: undefined }), (error: unknown) => ({ result: undefined, error }))
  const after = { signatures: await signaturesOf(signer.address), buyer: await usdcOf(signer.address), merchant: await usdcOf(merchant.signer.address) }
  return {
    ...outcome,
    signer,
    steps,
    newTransactions: after.signatures.filter(s => !before.signatures.includes(s)),
    buyerPaid: before.buyer - after.buyer,
    merchantReceived: after.merchant - before.merchant
  }
}

const stepsOf = (steps: BuyStep[], type: BuyStep['type']) => steps.filter(s => s.type === type)

t.test('delivery fails once after payment (502), then succeeds with the same proof: one transfer on chain', async t => {
  priceApi.fail({ mode: 'error', status: 500, times: 2, path: PRICE_PATH }) // the merchant tries Jupiter twice, then answers 502
  const run = await purchase()
  t.equal(run.error, undefined)
  const { result } = run
  if (result === undefined) return
  t.equal(result.status, 200)
  t.equal((result.data as { data: { mintSymbol: string } }).data.mintSymbol, 'SOL')
  t.equal(result.amountPaid, PRICE)
  t.match(result.receipt, { success: true, transaction: result.signature, network: 'solana-devnet', payer: run.signer.address, extensions: { 'offer-receipt': { info: { receipt: { format: 'jws' } } } } })

  t.equal(stepsOf(run.steps, 'payment-sent').length, 1, 'paid once')
  t.match(stepsOf(run.steps, 'delivery-retry'), [{ attempt: 1, status: 502, code: 'UPSTREAM_ERROR' }])
  t.same(stepsOf(run.steps, 'proof-sent').map(s => s.type === 'proof-sent' && s.signature), [result.signature, result.signature], 'the same proof twice')
  t.same(run.newTransactions, [result.signature], 'exactly one transaction of the buyer on chain')
  t.equal(run.buyerPaid, PRICE)
  t.equal(run.merchantReceived, PRICE)
})

t.test('PAYMENT_NOT_FOUND right after sending, then the merchant\'s RPC unhealthy (503): retried with the same proof', async t => {
  gap.next('not-found', 'unavailable')
  const run = await purchase()
  t.equal(run.error, undefined)
  t.equal(run.result?.status, 200)
  t.match(stepsOf(run.steps, 'delivery-retry'), [
    { attempt: 1, status: 402, code: 'PAYMENT_NOT_FOUND' },
    { attempt: 2, status: 503, code: 'RPC_UNAVAILABLE', delayMs: 2000 }
  ], 'the 503\'s Retry-After (2 s) wins over the shorter backoff')
  t.equal(stepsOf(run.steps, 'proof-sent').length, 3)
  t.equal(run.newTransactions.length, 1, 'one payment')
  t.equal(run.merchantReceived, PRICE)
})

t.test('delivery keeps failing: DELIVERY_FAILED carries the signature, which delivers later without paying again', async t => {
  priceApi.fail({ mode: 'error', status: 500, path: PRICE_PATH })
  const failed = await purchase({ deliveryRetries: 1 })
  priceApi.fail(null)
  const error = failed.error
  if (!isBuyerError(error, 'DELIVERY_FAILED')) throw error
  t.match(error.details, { status: 502, serverCode: 'UPSTREAM_ERROR', attempts: 2, payer: failed.signer.address })
  t.match(error.message, /do not pay again: retry the delivery with this signature/)
  t.same(failed.newTransactions, [error.signature])
  t.equal(failed.buyerPaid, PRICE)

  const resumed = await purchase({ signer: failed.signer, paidSignature: error.signature })
  t.equal(resumed.result?.status, 200)
  t.equal(resumed.result?.amountPaid, 0n, 'this call paid nothing')
  t.equal(resumed.result?.receipt?.transaction, error.signature)
  t.same(resumed.newTransactions, [], 'no transaction')
  t.equal(stepsOf(resumed.steps, 'request').length, 0, 'straight to the proof')

  const reused = await purchase({ signer: failed.signer, paidSignature: error.signature })
  t.ok(isBuyerError(reused.error, 'DELIVERY_FAILED'))
  t.match((reused.error as Error).message, /already bought a delivery/)
  t.equal(stepsOf(reused.steps, 'proof-sent').length, 1, 'a spent proof is not retried')
})

t.test('spending guard: a price above maxPrice is refused before any transaction', async t => {
  net.resetStats()
  const run = await purchase({ maxPrice: PRICE - 1n })
  const error = run.error
  if (!isBuyerError(error, 'SPENDING_LIMIT')) throw error
  t.match(error.message, /costs 0.05 USDC \(50000 base units\), above the limit of 49999 base units; nothing was paid/)
  t.same(error.details, { price: '50000', maxPrice: '49999' })
  t.same(run.newTransactions, [])
  t.equal(run.buyerPaid, 0n)
  t.notOk(net.stats().sendTransaction, 'nothing sent')
  t.same(run.steps.map(s => s.type), ['request', 'payment-required'])

  const atLimit = await purchase({ maxPrice: PRICE })
  t.equal(atLimit.result?.amountPaid, PRICE, 'a price equal to the limit is paid')
})

t.test('a 402 that disagrees with the manifest is refused before paying', async t => {
  const impostor = (await generateKeyPairSigner()).address
  net.resetStats()
  const run = await purchase({
    manifest: { ...manifest, payment_address: impostor, services: manifest.services.map(s => ({ ...s, price: 1000 })) }
  })
  const error = run.error
  if (!isBuyerError(error, 'REQUIREMENTS_MISMATCH')) throw error
  t.match(error.details.problems, [/^price 50000 differs from the manifest's 1000/, /^recipient .* differs from the manifest's payment_address/])
  t.same(run.newTransactions, [])
  t.notOk(net.stats().sendTransaction)

  const unlisted = await purchase({ manifest: { ...manifest, services: manifest.services.filter(s => s.name !== 'fetch-price') } })
  t.match(unlisted.error, { code: 'REQUIREMENTS_MISMATCH', message: /lists no paid service for \/api\/fetch-price\/SOL/ })
})

t.test('refusals before paying: the merchant rejects the request, the buyer lacks funds', async t => {
  const unknown = await purchase({ url: `${merchant.url}/api/fetch-price/NOSUCHTOKEN` })
  t.match(unknown.error, { code: 'REQUEST_FAILED', details: { status: 404, serverCode: 'TOKEN_NOT_FOUND' } })
  t.same(unknown.newTransactions, [])

  const poor = await purchase({ usdc: PRICE - 1n })
  t.match(poor.error, { code: 'INSUFFICIENT_FUNDS', message: /holds 0.049999 .*; 0.05 is needed/ })
  t.same(poor.newTransactions, [])
})

t.test('preparePayment reads the chain before anything is signed', async t => {
  const challenge = await fetch(priceUrl)
  const requirement = readPaymentRequirement(await challenge.json(), priceUrl)
  const buyer = await env.createBuyer(1_000_000n)

  t.test('a recipient without a token account: RECIPIENT_ACCOUNT_MISSING, nothing created', async t => {
    const stranger = (await generateKeyPairSigner()).address
    const { extra, ...rest } = requirement
    const error = await preparePayment(net.rpc, buyer.address, { ...rest, payTo: stranger }, PRICE).catch((e: unknown) => e)
    if (!isBuyerError(error, 'RECIPIENT_ACCOUNT_MISSING')) throw error
    const { value } = await net.rpc.getAccountInfo(error.details.destination as Address, { encoding: 'base64' }).send()
    t.equal(value, null, 'the account still does not exist')
    t.ok(extra, 'the real requirement carries extra')
  })

  t.test('a recipientTokenAccount that is not the ATA of payTo: REQUIREMENTS_MISMATCH', async t => {
    const wrong = { ...requirement, extra: { ...requirement.extra, recipientTokenAccount: merchant.signer.address } }
    await t.rejects(preparePayment(net.rpc, buyer.address, wrong, PRICE), { code: 'REQUIREMENTS_MISMATCH' })
  })

  t.test('a Token-2022 mint is paid through the Token-2022 program', async t => {
    const mint2022 = await net.createMint({ decimals: 6, program: 'token-2022' })
    const seller = await net.createWallet()
    const sellerAccount = await net.createAta(mint2022, seller.address)
    await net.mintTo(mint2022, buyer.address, 300_000n)
    const plan = await preparePayment(net.rpc, buyer.address, { ...requirement, asset: mint2022, payTo: seller.address, extra: undefined }, 200_000n)
    t.match(plan, { tokenProgram: TOKEN_2022_PROGRAM_ADDRESS, destination: sellerAccount, decimals: 6, balance: 300_000n })
    const sent = await sendPayment(net.rpc, buyer, plan, 'confirmed')
    await waitForConfirmation(net.rpc, sent, { commitment: 'confirmed', timeoutMs: 10_000, pollIntervalMs: 50 })
    t.equal((await net.rpc.getTokenAccountBalance(sellerAccount).send()).value.amount, '200000')
  })

  t.test('a mint with a transfer fee is refused: the merchant would receive less than the price', async t => {
    const feeMint = await net.createMint({ decimals: 6, program: 'token-2022', extensions: { transferFee: { basisPoints: 100, maximumFee: 1000n } } })
    await t.rejects(preparePayment(net.rpc, buyer.address, { ...requirement, asset: feeMint, extra: undefined }, PRICE), { code: 'UNSUPPORTED_MINT', message: /transfer fee/ })
  })
})

t.test('x402: the answer is lost after the merchant settled; the retry with the same payment (and payment-identifier) is re-delivered, paid once', async t => {
  let dropped = 0
  // The connection drops after the merchant wrote its paid answer: the client never reads it.
  const losingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    const paid = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).has('payment-signature')
    if (paid && response.ok && dropped++ === 0) throw new TypeError('fetch failed: the connection was reset')
    return response
  }
  const run = await purchase({ rpc: net.url, flow: 'x402', fetch: losingFetch })
  t.equal(run.error, undefined, String(run.error))
  t.equal(dropped, 2, 'the first answer was lost, the retry was read')
  t.equal((run.result?.data as { data: { mintSymbol: string } } | undefined)?.data.mintSymbol, 'SOL', 'the data')
  const delivered = stepsOf(run.steps, 'delivered')
  t.match(delivered, [{ type: 'delivered', status: 200, redelivered: true }], 'the retry says it was a re-delivery')
  t.equal(run.buyerPaid, PRICE, 'paid once')
  t.equal(run.merchantReceived, PRICE)
})
