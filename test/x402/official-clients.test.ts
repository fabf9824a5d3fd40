import t, { type Test } from 'tap'
import { wrapFetchWithPayment, x402Client as X402Client, x402HTTPClient as X402HTTPClient, decodePaymentResponseHeader } from '@x402/fetch'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import { ExactSvmSchemeV1 } from '@x402/svm/exact/v1/client'
import { wrap as wrapWithFaremeter } from '@faremeter/fetch'
import { createPaymentHandler } from '@faremeter/payment-solana/exact'
import { partiallySignTransaction, type Address } from '@solana/kit'
import { startX402Merchant } from '../fixtures/x402-merchant.js'

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

t.test('the official @x402/fetch client pays both routes', async (t) => {
  const m = await startX402Merchant(t)
  const routes = [
    { path: '/api/fetch-price/SOL', price: 50_000n, check: (body: any) => body.data?.mintSymbol === 'SOL' },
    { path: `/api/analyze-token/${m.paid.mint}`, price: 100_000n, check: (body: any) => body.mint === m.paid.mint }
  ]

  /**
   * Each route bought once through `pay`: 200 with the data, the receipt `checkReceipt` expects, the
   * merchant richer by exactly the price and the buyer's SOL untouched (the merchant paid the fee).
   */
  async function buysEachRoute (t: Test, buyer: Address, pay: typeof fetch, checkReceipt: (res: Response) => void) {
    for (const route of routes) {
      const before = await m.merchantBalance()
      const sol = await m.solBalance(buyer)
      const res = await pay(`${m.url}${route.path}`)
      const body = await res.json()
      t.equal(res.status, 200, `${route.path}: ${JSON.stringify(body).slice(0, 300)}`)
      t.ok(route.check(body), 'the data')
      checkReceipt(res)
      t.equal(await m.merchantBalance() - before, route.price, 'the merchant got exactly the price')
      t.equal(await m.solBalance(buyer), sol, 'the buyer paid no SOL')
    }
  }

  t.test('v2 (PAYMENT-REQUIRED / PAYMENT-SIGNATURE)', async (t) => {
    const buyer = await m.paid.newBuyer(10_000_000n)
    const client = new X402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: m.paid.chain.url }))
    client.setSpendControls(false)
    await buysEachRoute(t, buyer.address, wrapFetchWithPayment(fetch, client), res => {
      const receipt = new X402HTTPClient(client).getPaymentSettleResponse(name => res.headers.get(name))
      t.match(receipt, { success: true, network: DEVNET, payer: buyer.address, transaction: String })
    })
  })

  t.test('v1 (X-PAYMENT), as a client that reads only the v1 body', async (t) => {
    const buyer = await m.paid.newBuyer(10_000_000n)
    const client = new X402Client().registerV1('solana-devnet', new ExactSvmSchemeV1(buyer, { rpcUrl: m.paid.chain.url }))
    client.setSpendControls(false)
    // A v1-only view of the server: the v2 header hidden, so the official client falls back to the body.
    const v1Fetch: typeof fetch = async (input, init) => {
      const res = await fetch(input, init)
      if (res.status !== 402) return res
      const headers = new Headers(res.headers)
      headers.delete('payment-required')
      return new Response(await res.text(), { status: res.status, headers })
    }
    await buysEachRoute(t, buyer.address, wrapFetchWithPayment(v1Fetch, client), res => {
      const receipt = decodePaymentResponseHeader(res.headers.get('x-payment-response') ?? '')
      t.match(receipt, { success: true, network: 'solana-devnet', payer: buyer.address })
      t.notOk(res.headers.get('payment-response'), 'a v1 payment gets the v1 receipt')
    })
  })

  t.test('Faremeter (@faremeter/fetch + @faremeter/payment-solana exact)', async (t) => {
    const buyer = await m.paid.newBuyer(10_000_000n)
    const wallet = {
      network: 'devnet',
      publicKey: buyer.address,
      partiallySignTransaction: async (tx: Parameters<typeof partiallySignTransaction>[1]) => await partiallySignTransaction([buyer.keyPair], tx)
    }
    const pay = wrapWithFaremeter(fetch, { handlers: [createPaymentHandler(wallet, m.paid.mint, m.paid.chain.url)] })
    await buysEachRoute(t, buyer.address, pay, res => {
      const receipt = res.headers.get('payment-response') ?? res.headers.get('x-payment-response')
      t.ok(receipt, 'a receipt')
      t.match(JSON.parse(Buffer.from(receipt ?? '', 'base64').toString('utf8')), { success: true, payer: buyer.address })
    })
  })
})
