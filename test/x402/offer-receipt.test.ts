import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { x402Client as X402CoreClient } from '@x402/core/client'
import type { PaymentRequired } from '@x402/core/types'
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose'
import { wrapFetchWithPayment, x402Client as X402Client, x402HTTPClient as X402HTTPClient } from '@x402/fetch'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import {
  decodeSignedOffers, extractOffersFromPaymentRequired, extractReceiptFromResponse, extractReceiptPayload, findAcceptsObjectFromSignedOffer,
  verifyOfferSignatureJWS, verifyReceiptMatchesOffer, verifyReceiptSignatureJWS, type JWSSignedOffer, type JWSSignedReceipt
} from '@x402/extensions/offer-receipt'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { a2aBuyer, payloadFor, x402Of } from '../fixtures/a2a-client.js'

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
const BASE = 'https://merchant.test'

interface DidDocument { id: string, verificationMethod: Array<{ id: string, publicKeyJwk: JWK }>, assertionMethod: string[] }

/** A plain JWS verifier: the key the header's kid names, looked up in the DID document, and nothing else. */
async function verifyAgainstDid (did: DidDocument, jws: string) {
  const { kid, alg } = decodeProtectedHeader(jws)
  const method = did.verificationMethod.find(m => m.id === kid)
  if (method === undefined) throw new Error(`kid ${String(kid)} is not in the DID document`)
  const { payload } = await compactVerify(jws, await importJWK(method.publicKeyJwk, alg))
  return JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>
}

t.test('signed offers on the 402 and a signed receipt on the paid answer, verified with the library and against did:web', async (t) => {
  const m = await startX402Merchant(t, { PUBLIC_BASE_URL: BASE })
  const didRes = await fetch(`${m.url}/.well-known/did.json`)
  t.equal(didRes.status, 200)
  const did = await didRes.json() as DidDocument
  t.equal(did.id, 'did:web:merchant.test', 'did:web of PUBLIC_BASE_URL')
  t.equal(did.assertionMethod.length, 1)
  const keyFile = join(dirname(m.app.config.MERCHANT_KEYPAIR_PATH), 'receipt-keypair.json')
  t.equal(statSync(keyFile).mode & 0o777, 0o600, 'the receipt keypair was created owner-only, next to the merchant keypair')
  // The library bundles its own jose: the same JWK, its type.
  const key = did.verificationMethod[0].publicKeyJwk as Parameters<typeof verifyOfferSignatureJWS>[1]
  t.not(did.verificationMethod[0].id.split('#')[1], m.paid.merchant.address, 'the receipt key is not the merchant key')

  const path = '/api/fetch-price/SOL'
  const unpaid = await fetch(`${m.url}${path}`)
  t.equal(unpaid.status, 402)
  const required = new X402HTTPClient(new X402Client()).getPaymentRequiredResponse(name => unpaid.headers.get(name), await unpaid.json())
  const offers = extractOffersFromPaymentRequired(required)
  t.equal(offers.length, required.accepts.length, 'one signed offer per requirement')
  const [offer] = decodeSignedOffers(offers)
  t.equal(findAcceptsObjectFromSignedOffer(offer, required.accepts), required.accepts[0], 'the offer is the requirement')
  const offerPayload = await verifyOfferSignatureJWS(offers[0] as JWSSignedOffer, key)
  t.match(offerPayload, { resourceUrl: `${BASE}${path}`, network: DEVNET, amount: '50000', payTo: required.accepts[0].payTo })
  t.ok((offerPayload.validUntil ?? 0) > Date.now() / 1000 + 100, 'valid for minutes')
  t.same(await verifyAgainstDid(did, (offers[0] as JWSSignedOffer).signature), offerPayload, 'a plain JWS verifier agrees')

  const buyer = await m.paid.newBuyer(10_000_000n)
  const client = new X402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: m.paid.chain.url }))
  client.setSpendControls(false)
  const before = await m.merchantBalance()
  const res = await wrapFetchWithPayment(fetch, client)(`${m.url}${path}`)
  t.equal(res.status, 200, await res.clone().text())
  t.equal(await m.merchantBalance() - before, 50_000n, 'the merchant got the price')
  const settlement = new X402HTTPClient(client).getPaymentSettleResponse(name => res.headers.get(name))
  const receipt = extractReceiptFromResponse(res) as JWSSignedReceipt
  t.ok(receipt, 'a receipt in the settlement response')
  t.ok(verifyReceiptMatchesOffer(receipt, offer, [buyer.address]), 'the receipt matches the offer and the payer')
  const receiptPayload = await verifyReceiptSignatureJWS(receipt, key)
  t.match(receiptPayload, { resourceUrl: `${BASE}${path}`, payer: buyer.address, network: DEVNET, transaction: settlement.transaction })
  t.same(await verifyAgainstDid(did, receipt.signature), receiptPayload, 'a plain JWS verifier agrees')
  t.same(extractReceiptPayload(receipt), receiptPayload)
  const landed = await m.paid.chain.rpc.getSignatureStatuses([settlement.transaction as Parameters<typeof m.paid.chain.rpc.getSignatureStatuses>[0][0]]).send()
  t.ok(landed.value[0]?.confirmationStatus, 'the receipt names a transaction that landed')
})

t.test('pay-then-prove: the proof\'s receipt (X-PAYMENT-RESPONSE) is signed too', async (t) => {
  const m = await startX402Merchant(t, { PUBLIC_BASE_URL: BASE })
  const did = await (await fetch(`${m.url}/.well-known/did.json`)).json() as DidDocument
  const buyer = await m.paid.newBuyer(10_000_000n)
  const signature = await m.paid.pay(buyer, 50_000n)
  const res = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'x-payment-signature': signature, 'x-payment-wallet': buyer.address } })
  t.equal(res.status, 200, await res.clone().text())
  const receipt = extractReceiptFromResponse(res) as JWSSignedReceipt
  t.ok(receipt, 'a signed receipt in the proof\'s receipt header')
  t.match(await verifyAgainstDid(did, receipt.signature), { resourceUrl: `${BASE}/api/fetch-price/SOL`, payer: buyer.address, network: DEVNET, transaction: signature })
})

t.test('MCP: the PaymentRequired result carries signed offers, the paid result a signed receipt in its x402/payment-response', async (t) => {
  const m = await startX402Merchant(t, { PUBLIC_BASE_URL: BASE })
  const did = await (await fetch(`${m.url}/.well-known/did.json`)).json() as DidDocument
  const client = new Client({ name: 'offer-receipt-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', m.url)))
  t.teardown(async () => await client.close())
  const args = { token: 'SOL', vs: 'USDC' }
  const unpaid = await client.callTool({ name: 'fetch_price', arguments: args }) as CallToolResult
  const required = unpaid.structuredContent as unknown as PaymentRequired
  const offers = extractOffersFromPaymentRequired(required)
  t.equal(offers.length, 1, 'a signed offer')
  const [offer] = decodeSignedOffers(offers)
  t.equal(findAcceptsObjectFromSignedOffer(offer, required.accepts), required.accepts[0])
  t.match(await verifyAgainstDid(did, (offers[0] as JWSSignedOffer).signature), { resourceUrl: required.resource.url, amount: required.accepts[0].amount })

  const buyer = await m.paid.newBuyer(10_000_000n)
  const payer = new X402CoreClient().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: m.paid.chain.url }))
  const payload = await payer.createPaymentPayload(required)
  const before = await m.merchantBalance()
  const paid = await client.callTool({ name: 'fetch_price', arguments: args, _meta: { 'x402/payment': payload } }) as CallToolResult
  t.notOk(paid.isError, JSON.stringify(paid).slice(0, 300))
  t.equal(await m.merchantBalance() - before, 50_000n, 'the merchant got the price')
  const settlement = paid._meta?.['x402/payment-response'] as { transaction: string, extensions: Record<string, { info: { receipt: JWSSignedReceipt } }> }
  const receipt = settlement.extensions['offer-receipt'].info.receipt
  t.ok(verifyReceiptMatchesOffer(receipt, offer, [buyer.address]), 'the receipt matches the offer and the payer')
  t.match(await verifyAgainstDid(did, receipt.signature), { payer: buyer.address, network: DEVNET, transaction: settlement.transaction, resourceUrl: required.resource.url })
})

t.test('a rotated receipt key stays in the DID document: old receipts still verify', async (t) => {
  const m = await startX402Merchant(t, { PUBLIC_BASE_URL: BASE, RECEIPT_RETIRED_KEYS: '11111111111111111111111111111112' })
  const did = await (await fetch(`${m.url}/.well-known/did.json`)).json() as DidDocument
  t.equal(did.verificationMethod.length, 2, 'the current key and the retired one')
  t.equal(did.verificationMethod[1].id, 'did:web:merchant.test#11111111111111111111111111111112')
  t.same(did.assertionMethod, [did.verificationMethod[0].id], 'only the current key signs')
})

t.test('A2A: the payment-required task carries signed offers, the completed task a signed receipt in x402.payment.receipts', async (t) => {
  // The card names PUBLIC_BASE_URL, which the test cannot reach; a skill's resource is absolute anyway (a2a://skill/…).
  const m = await startX402Merchant(t)
  const did = await (await fetch(`${m.url}/.well-known/did.json`)).json() as DidDocument
  const a2a = await a2aBuyer(m.url)
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  const required = x402Of(task)['x402.payment.required'] as PaymentRequired
  const offers = extractOffersFromPaymentRequired(required)
  t.equal(offers.length, 1, 'a signed offer')
  const [offer] = decodeSignedOffers(offers)
  t.match(await verifyAgainstDid(did, (offers[0] as JWSSignedOffer).signature), { resourceUrl: required.resource.url, amount: required.accepts[0].amount })

  const buyer = await m.paid.newBuyer(1_000_000n)
  const before = await m.merchantBalance()
  const done = await a2a.pay(task.id, await payloadFor(buyer, required, m.paid.chain.url))
  t.equal(await m.merchantBalance() - before, 50_000n, 'the merchant got the price')
  const [settlement] = x402Of(done)['x402.payment.receipts'] as Array<{ transaction: string, extensions: Record<string, { info: { receipt: JWSSignedReceipt } }> }>
  const receipt = settlement.extensions['offer-receipt'].info.receipt
  t.ok(verifyReceiptMatchesOffer(receipt, offer, [buyer.address]), 'the receipt matches the offer and the payer')
  t.match(await verifyAgainstDid(did, receipt.signature), { payer: buyer.address, network: DEVNET, transaction: settlement.transaction, resourceUrl: 'a2a://skill/fetch-price?token=SOL' }, 'the resource as offered, its query included')
})
