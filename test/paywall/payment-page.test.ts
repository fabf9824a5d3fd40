import { dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { getTransactionDecoder, getTransactionEncoder, partiallySignTransaction, type KeyPairSigner } from '@solana/kit'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import t from 'tap'
import { buildPaywall } from '../../scripts/build-paywall.js'
import { wantsHtml } from '../../lib/paywall/accept.js'
import { checkPayloadTransfer } from '../../lib/x402/transaction-rules.js'
import { PREPARED_COMPUTE_UNIT_LIMIT } from '../../lib/x402/prepare-payment.js'
import { build } from '../helper.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { base64Json, paymentRequiredOf } from '../fixtures/x402-payment.js'

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8'
const PRICE = 50_000n

// MPP's challenges are each bound to the instant they were made (`expires`, and the HMAC `id` over it):
// two 402s agree on everything else, byte for byte.
const sameChallengeTerms = (headers: Record<string, unknown>): Record<string, unknown> => ({
  ...headers,
  'www-authenticate': String(headers['www-authenticate']).replace(/\b(id|expires)="[^"]*"/g, '$1=""')
})

t.test('the Accept rule: text/html named, q > 0, ranked at least as high as application/json', async t => {
  t.ok(wantsHtml(BROWSER_ACCEPT), "a browser's navigation")
  t.ok(wantsHtml('text/html'))
  t.ok(wantsHtml('application/json, text/html'), 'equal rank: the page')
  for (const accept of [undefined, '', '*/*', 'application/json', 'text/*', 'text/html;q=0', 'text/html;q=0.5, application/json',
    'application/json, text/html;q=0.9', 'text/html;q=abc', 'text/plain']) {
    t.notOk(wantsHtml(accept), `JSON for ${JSON.stringify(accept)}`)
  }
})

t.test('a merchant with the payment page', async t => {
  await buildPaywall()
  const merchant = await startX402Merchant(t, { PAYWALL_PREPARE_MAX: '3' })
  const { app, paid, feePayer } = merchant
  const resource = `${merchant.url}/api/fetch-price/SOL`

  await t.test('programs get the JSON 402 byte for byte as with PAYWALL=false; a browser gets the page with the same terms', async t => {
    // The same receipt key: the offers in PAYMENT-REQUIRED sign to the same bytes (Ed25519, one validity step).
    const receiptKey = join(dirname(app.config.MERCHANT_KEYPAIR_PATH), 'receipt-keypair.json')
    const off = await build(t, { ...paid.env, X402_NETWORK: 'solana-devnet', X402_FEE_PAYER_KEYPAIR_PATH: merchant.feePayerPath, PAYWALL: 'false', RECEIPT_KEYPAIR_PATH: receiptKey })
    t.equal(off.paywall, undefined, 'PAYWALL=false: no page, no assets, no prepare')
    const ask = async (server: typeof app, accept: string | undefined) => await server.inject({
      url: '/api/fetch-price/SOL',
      headers: { host: new URL(merchant.url).host, 'x-request-id': 'paywall-test-1', ...(accept === undefined ? {} : { accept }) }
    })
    // The recipient token account in the body is read in the background (again 30 s after a failed
    // read, lib/payment/recipient-account.ts): wait until both apps know it.
    let known = false
    for (let i = 0; i < 900 && !known; i++) {
      const bodies = await Promise.all([ask(app, undefined), ask(off, undefined)])
      known = bodies.every(answer => answer.body.includes('recipientTokenAccount'))
      if (!known) await new Promise(resolve => setTimeout(resolve, 50))
    }
    t.ok(known, 'both apps name the recipient token account')
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.9']) {
      const [on, plain] = await Promise.all([ask(app, accept), ask(off, accept)])
      t.equal(on.statusCode, 402)
      t.equal(on.body, plain.body, `the same body for Accept ${String(accept)}`)
      t.same(sameChallengeTerms(on.headers), sameChallengeTerms(plain.headers), `the same headers for Accept ${String(accept)}`)
      t.match(on.headers['content-type'], /^application\/json/)
    }
    const page = await ask(app, BROWSER_ACCEPT)
    const json = await ask(app, 'application/json')
    t.equal(page.statusCode, 402)
    t.match(page.headers['content-type'], /^text\/html; charset=utf-8/)
    t.equal(page.headers['payment-required'], json.headers['payment-required'], 'PAYMENT-REQUIRED unchanged')
    for (const name of ['cache-control', 'x-request-id', 'x-content-type-options', 'x-frame-options']) t.equal(page.headers[name], json.headers[name], `${name} unchanged`)
    const csp = String(page.headers['content-security-policy'])
    t.notMatch(csp, /unsafe-inline|unsafe-eval|https?:/, 'no inline code allowed, no other origin')
    t.match(csp, /script-src 'self'/)
    t.match(csp, /connect-src 'self'/)
    t.match(page.body, /<h1>Token price<\/h1>/, 'the product, from the catalogue')
    t.match(page.body, /<strong id="item">SOL<\/strong>/, 'what is being bought')
    t.match(page.body, />Pay 0\.05 USDC</, 'the price in the payment token')
    t.match(page.body, new RegExp(`<dd id="token">USDC <code>${paid.mint}</code></dd>`), 'the payment token by its symbol, then its mint')
    t.match(page.body, /Solana devnet/, 'the network')
    t.match(page.body, new RegExp(paid.merchant.address), "the merchant's address")
    t.notMatch(page.body, /<script>|<style>| on[a-z]+="/i, 'no inline script, style or handler')
    t.equal((await ask(off, BROWSER_ACCEPT)).headers['content-type'], 'application/json; charset=utf-8', 'PAYWALL=false: browsers get JSON')
    t.equal((await off.inject({ method: 'POST', url: '/api/x402/prepare', payload: { resource, buyer: feePayer.address } })).statusCode, 404)

    const symbol = await build(t, { ...paid.env, X402_NETWORK: 'solana-devnet', X402_FEE_PAYER_KEYPAIR_PATH: merchant.feePayerPath, PAYMENT_TOKEN_SYMBOL: 'EURC' })
    t.match((await ask(symbol, BROWSER_ACCEPT)).body, />Pay 0\.05 EURC</, 'the symbol is the configured one, never a fixed "USDC"')
  })

  await t.test('a mistyped token in a browser gets the refusal as a page; programs keep the JSON', async t => {
    const ask = async (accept: string) => await app.inject({ url: '/api/fetch-price/SO%21L', headers: { accept, 'x-request-id': 'mistyped-1' } })
    const page = await ask(BROWSER_ACCEPT)
    t.equal(page.statusCode, 400)
    t.match(page.headers['content-type'], /^text\/html/)
    t.match(page.headers['content-security-policy'], "script-src 'self'")
    const json = (await ask('application/json')).json()
    t.equal(json.code, 'VALIDATION_ERROR')
    const escaped = (text: string) => text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)
    t.match(page.body, escaped(json.validation[0].message), 'the same sentence as the JSON\'s')
    t.match(page.body, 'Nothing was charged')
    t.match(page.body, 'mistyped-1', 'the request id to quote')
    t.notMatch(page.body, '<script', 'nothing to run')
    const hostile = await app.inject({ url: '/api/analyze-token/%3Cscript%3E', headers: { accept: BROWSER_ACCEPT } })
    t.equal(hostile.statusCode, 400)
    t.notMatch(hostile.body, '<script>', 'what the request said is escaped')
    t.equal((await app.inject({ url: '/no-such-page', headers: { accept: BROWSER_ACCEPT } })).headers['content-type'], 'application/json; charset=utf-8', 'not a paid route: JSON as before')
  })

  await t.test('the page is served under a budget, its files with ETags and a long cache', async t => {
    const page = await app.inject({ url: '/api/analyze-token/So11111111111111111111111111111111111111112', headers: { accept: BROWSER_ACCEPT } })
    t.equal(page.statusCode, 402)
    t.match(page.body, /Token security analysis/)
    t.match(page.body, />Pay 0\.1 USDC</)
    const urls = [...page.body.matchAll(/(?:src|href)="(\/paywall\/[^"]+)"/g)].map(match => match[1])
    t.equal(urls.length, 2, 'one script and one style, files of this origin')
    let gzipped = gzipSync(page.body).length
    for (const url of urls) {
      const file = await app.inject({ url })
      t.equal(file.statusCode, 200, url)
      t.equal(file.headers['cache-control'], 'public, max-age=31536000, immutable')
      t.match(file.headers['content-type'], url.endsWith('.js') ? /^text\/javascript/ : /^text\/css/)
      t.equal(file.headers['x-content-type-options'], 'nosniff')
      const again = await app.inject({ url, headers: { 'if-none-match': String(file.headers.etag) } })
      t.equal(again.statusCode, 304, 'If-None-Match: 304')
      gzipped += gzipSync(file.rawPayload).length
    }
    t.ok(gzipped <= 100 * 1024, `HTML + script + style: ${gzipped} bytes gzipped, at most 100 KB`)
    t.equal((await app.inject({ url: '/paywall/pay.0000000000000000.js' })).statusCode, 404, 'only the built files')
  })

  await t.test('POST /api/x402/prepare refuses what it would not sell, in the error shape', async t => {
    const prepare = async (body: unknown) => await app.inject({ method: 'POST', url: '/api/x402/prepare', headers: { host: new URL(merchant.url).host }, payload: body as object })
    const buyer = await paid.newBuyer(0n)
    for (const [body, status, code] of [
      [{ resource: `${merchant.url}/health/live`, buyer: buyer.address }, 404, 'RESOURCE_NOT_FOR_SALE'],
      [{ resource: 'https://elsewhere.example/api/fetch-price/SOL', buyer: buyer.address }, 404, 'RESOURCE_NOT_FOR_SALE'],
      [{ resource: 'not a url', buyer: buyer.address }, 404, 'RESOURCE_NOT_FOR_SALE'],
      [{ resource, buyer: 'not-an-address' }, 400, 'VALIDATION_ERROR'],
      [{ resource, buyer: '1111111111111111111111111111111O' }, 400, 'VALIDATION_ERROR'],
      [{ resource, buyer: feePayer.address }, 400, 'VALIDATION_ERROR'],
      [{ resource, buyer: buyer.address, extra: 1 }, 400, 'VALIDATION_ERROR']
    ] as const) {
      const answer = await prepare(body)
      t.equal(answer.statusCode, status, JSON.stringify(body))
      t.equal(answer.json().code, code)
      t.type(answer.json().requestId, 'string')
    }
  })

  await t.test('the prepared transaction, signed by the buyer alone, passes the x402 rules and pays through the one door', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const answer = await app.inject({ method: 'POST', url: '/api/x402/prepare', remoteAddress: '10.0.0.1', headers: { host: new URL(merchant.url).host }, payload: { resource, buyer: buyer.address } })
    t.equal(answer.statusCode, 200)
    const prepared = answer.json()
    t.match(prepared, { buyer: buyer.address, balance: '1000000', price: '50000', decimals: 6, symbol: 'USDC', enough: true })
    const transaction = getTransactionDecoder().decode(Buffer.from(prepared.transaction, 'base64'))
    t.ok(Object.values(transaction.signatures).every(signature => signature === null), 'it signs nothing')
    const [merchantAta] = await findAssociatedTokenPda({ owner: paid.merchant.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    const signed = await signAsBuyer(prepared.transaction, buyer)
    const checked = checkPayloadTransfer(signed, { feePayer: feePayer.address, mint: paid.mint, amount: PRICE, destinations: { token: merchantAta, token2022: merchantAta }, maxPriorityFeeLamports: 10_000n, x402Version: 2 })
    t.equal(checked.kind, 'checked', 'our rules accept it')
    if (checked.kind === 'checked') {
      t.equal(checked.transfer.payer, buyer.address)
      t.equal(checked.transfer.amount, PRICE)
      t.ok(checked.transfer.feeLamports <= 10_000n + BigInt(PREPARED_COMPUTE_UNIT_LIMIT))
    }
    const second = (await app.inject({ method: 'POST', url: '/api/x402/prepare', remoteAddress: '10.0.0.1', headers: { host: new URL(merchant.url).host }, payload: { resource, buyer: buyer.address } })).json()
    t.not(second.transaction, prepared.transaction, 'each preparation is a new transaction (its memo)')

    const required = paymentRequiredOf(new Headers((await fetch(resource)).headers))
    const before = await merchant.merchantBalance()
    const paidAnswer = await fetch(resource, { headers: { 'payment-signature': base64Json({ x402Version: 2, resource: required.resource, accepted: required.accepts[0], payload: { transaction: signed } }) } })
    t.equal(paidAnswer.status, 200, await paidAnswer.clone().text())
    t.ok(paidAnswer.headers.get('payment-response'))
    t.equal(await merchant.merchantBalance() - before, PRICE, 'the merchant got exactly the price, on chain')
    t.equal(await merchant.tokenBalance(buyer.address), 1_000_000n - PRICE)
  })

  await t.test('a buyer without a token account has a balance of 0; preparations are rate-limited per client', async t => {
    const buyer = await paid.chain.createWallet()
    const prepare = async () => await app.inject({ method: 'POST', url: '/api/x402/prepare', remoteAddress: '10.0.0.2', headers: { host: new URL(merchant.url).host }, payload: { resource, buyer: buyer.address } })
    const first = await prepare()
    t.match(first.json(), { balance: '0', enough: false })
    await prepare()
    await prepare()
    const limited = await prepare()
    t.equal(limited.statusCode, 429)
    t.equal(limited.json().code, 'RATE_LIMITED')
    t.ok(Number(limited.headers['retry-after']) >= 1)
  })
})

async function signAsBuyer (base64: string, buyer: KeyPairSigner): Promise<string> {
  const transaction = getTransactionDecoder().decode(Buffer.from(base64, 'base64'))
  const signed = await partiallySignTransaction([buyer.keyPair], transaction)
  return Buffer.from(getTransactionEncoder().encode(signed)).toString('base64')
}
