import t, { type Test } from 'tap'
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose'
import { wrapFetchWithPayment, x402Client as X402Client } from '@x402/fetch'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import type { Signature } from '@solana/kit'
import { startX402Merchant, type X402Merchant } from '../fixtures/x402-merchant.js'
import { startTestPostgres } from '../fixtures/postgres.js'

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

interface DidDocument { verificationMethod: Array<{ id: string, publicKeyJwk: JWK }> }
interface Delivery { signature: string, network: string, service: string, price: string, resource_hash: string, outcome: string, at: string }

/** A body and its x-reputation-signature, checked against the DID document: the JWS payload is the body's bytes. */
async function signedBody (t: Test, res: Response, did: DidDocument): Promise<any> {
  const text = await res.text()
  const jws = res.headers.get('x-reputation-signature') ?? ''
  const method = did.verificationMethod.find(m => m.id === decodeProtectedHeader(jws).kid)
  t.ok(method, 'the kid is in the DID document')
  const { payload } = await compactVerify(jws, await importJWK(method?.publicKeyJwk ?? {}, 'EdDSA'))
  t.equal(new TextDecoder().decode(payload), text, 'the signature covers the body as sent')
  return JSON.parse(text)
}

/** What the chain says a transaction moved to the merchant's token accounts, or null if it did not land. */
async function paidToMerchant (m: X402Merchant, signature: string): Promise<bigint | null> {
  const tx = await m.paid.chain.rpc.getTransaction(signature as Signature, { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send()
  if (tx === null || tx.meta === null || tx.meta.err !== null) return null
  const owned = (balances: typeof tx.meta.postTokenBalances) => (balances ?? [])
    .filter(b => b.owner === m.paid.merchant.address && b.mint === m.paid.mint)
    .reduce((sum, b) => sum + BigInt(b.uiTokenAmount.amount), 0n)
  return owned(tx.meta.postTokenBalances) - owned(tx.meta.preTokenBalances)
}

for (const engine of ['SQLite', 'PostgreSQL'] as const) {
  t.test(`${engine}: the reputation recounts from its signed evidence and the chain`, async (t) => {
    const env: Record<string, string> = engine === 'PostgreSQL' ? { DATABASE_URL: await (await startTestPostgres(t)).createDatabase(t) } : {}
    const m = await startX402Merchant(t, env)
    const did = await (await fetch(`${m.url}/.well-known/did.json`)).json() as DidDocument

    const buyer = await m.paid.newBuyer(10_000_000n)
    const client = new X402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: m.paid.chain.url }))
    client.setSpendControls(false)
    const pay = wrapFetchWithPayment(fetch, client)
    for (const path of ['/api/fetch-price/SOL', '/api/fetch-price/SOL', `/api/analyze-token/${m.paid.mint}`]) {
      t.equal((await pay(`${m.url}${path}`)).status, 200, path)
    }
    // Pay-then-prove, and a proof naming a transaction that does not exist: refused, never listed.
    const proved = await m.paid.pay(buyer, 50_000n)
    t.equal((await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'x-payment-signature': proved, 'x-payment-wallet': buyer.address } })).status, 200)
    const invented = (await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'x-payment-signature': '5'.repeat(88), 'x-payment-wallet': buyer.address } })).status
    t.not(invented, 200, 'a proof with no payment on chain buys nothing')

    const reputation = await signedBody(t, await fetch(`${m.url}/reputation`), did)

    // Every page, two entries at a time, each signed.
    const listed: Delivery[] = []
    let cursor: string | null = null
    do {
      const res: Response = await fetch(`${m.url}/reputation/deliveries?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)
      t.equal(res.status, 200)
      const page = await signedBody(t, res, did) as { deliveries: Delivery[], next_cursor: string | null }
      t.ok(page.deliveries.length <= 2)
      listed.push(...page.deliveries)
      cursor = page.next_cursor
    } while (cursor !== null)

    const delivered = listed.filter(d => d.outcome === 'DELIVERED')
    t.equal(listed.length, reputation.transactions, 'transactions recount from the list')
    t.equal(delivered.length, reputation.deliveries, 'deliveries recount from the list')
    t.equal(delivered.reduce((sum, d) => sum + BigInt(d.price), 0n).toString(), reputation.revenue.base_units, 'revenue recounts from the list')
    t.equal(delivered.length, 4)
    t.notOk(listed.some(d => d.signature === '5'.repeat(88)), 'the invented payment is not listed')
    t.notOk(JSON.stringify(listed).includes(buyer.address), 'no buyer data beyond the chain')
    for (const delivery of delivered) {
      t.equal(delivery.network, DEVNET)
      const moved = await paidToMerchant(m, delivery.signature)
      t.ok(moved !== null && moved >= BigInt(delivery.price), `${delivery.signature.slice(0, 8)}… landed and paid at least ${delivery.price} to payTo (${String(moved)})`)
    }

    const bad = await fetch(`${m.url}/reputation/deliveries?cursor=abc`)
    t.equal(bad.status, 400)
    t.match(await bad.json(), { statusCode: 400, code: 'VALIDATION_ERROR', requestId: String }, 'the one error shape')
  })
}
