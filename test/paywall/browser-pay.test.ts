import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { buildPaywall } from '../../scripts/build-paywall.js'
import { startX402Merchant, type X402Merchant } from '../fixtures/x402-merchant.js'
import { installTestWallet, type TestWallet } from '../fixtures/test-wallet.js'
import { testFolder } from '../fixtures/test-folder.js'

/** Debian's chromium (.ci/run installs it); Playwright's own browser downloads cannot reach their CDN. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync']
const PRICE = 50_000n
// Chromium's own line for any 402 navigation: the browser's, not the page's.
const CHROMIUM_402 = /Failed to load resource: the server responded with a status of 402/
// `UPDATE_SCREENSHOTS=1` writes the screenshots into docs/ for the README.
const DOCS = join(import.meta.dirname, '..', '..', 'docs')

interface Session { context: BrowserContext, page: Page, wallet: TestWallet, requests: string[], consoleErrors: string[] }

async function open (t: Test, browser: Browser, merchant: X402Merchant, buyer: Parameters<typeof installTestWallet>[1], path: string): Promise<Session> {
  const context = await browser.newContext({ viewport: { width: 900, height: 1000 } })
  t.teardown(() => context.close())
  const wallet = await installTestWallet(context, buyer)
  const requests: string[] = []
  const consoleErrors: string[] = []
  context.on('request', request => requests.push(request.url()))
  const page = await context.newPage()
  page.on('console', message => { if (message.type() === 'error') consoleErrors.push(message.text()) })
  page.on('pageerror', error => consoleErrors.push(error.message))
  const response = await page.goto(`${merchant.url}${path}`)
  t.equal(response?.status(), 402, 'the navigation is answered 402')
  t.match(response?.headers()['content-type'], /^text\/html/)
  t.ok(response?.headers()['payment-required'], 'PAYMENT-REQUIRED is there for a program that reads it')
  await page.getByRole('button', { name: 'Connect wallet' }).and(page.locator(':enabled')).waitFor()
  return { context, page, wallet, requests, consoleErrors }
}

/** Connects with the keyboard only: Tab to the button, Enter. */
async function connectWithKeyboard (page: Page): Promise<void> {
  for (let i = 0; i < 20 && await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id) !== 'connect'; i++) {
    await page.keyboard.press('Tab')
  }
  await page.keyboard.press('Enter')
}

const statusText = async (page: Page) => await page.locator('#status').innerText()

function onlyMerchantOrigin (t: Test, merchant: X402Merchant, session: Session, allowed: RegExp[] = []): void {
  const origin = new URL(merchant.url).origin
  t.same(session.requests.filter(url => !url.startsWith(origin + '/') && !url.startsWith('data:')), [], 'no request leaves the merchant\'s origin')
  t.same(session.consoleErrors.filter(text => !CHROMIUM_402.test(text) && !allowed.some(pattern => pattern.test(text))), [], 'no console error')
}

t.test('a person pays in a real browser with a wallet-standard wallet, on the local chain', async t => {
  await buildPaywall()
  const merchant = await startX402Merchant(t)
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  t.teardown(() => browser.close())
  const { paid, feePayer } = merchant

  await t.test('connect, pay 0.05 USDC, see the answer and the receipt; a second payment is a new purchase', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const session = await open(t, browser, merchant, buyer, '/api/fetch-price/SOL')
    const { page, wallet } = session
    t.equal(await page.locator('h1').innerText(), 'Token price')
    t.equal(await page.locator('#item').innerText(), 'SOL')
    t.equal(await page.locator('#price').innerText(), '0.05 USDC')
    t.match(await statusText(page), /Test Wallet found/)
    // testFolder(t) empties the folder on each call: once.
    const dir = testFolder(t)
    const before = join(dir, 'before.png')
    await page.screenshot({ path: before, fullPage: true })

    await connectWithKeyboard(page)
    await page.getByText('you have 1 USDC').waitFor()
    const pay = page.getByRole('button', { name: 'Pay 0.05 USDC' })
    t.ok(await pay.isEnabled(), 'then "Pay 0.05 USDC"')
    t.notOk(await page.getByRole('button', { name: 'Connect wallet' }).isVisible(), 'instead of "Connect wallet"')
    t.equal(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id), 'pay', 'the Pay button has the focus')

    const [buyerBefore, merchantBefore, feePayerBefore] = await Promise.all([merchant.tokenBalance(buyer.address), merchant.merchantBalance(), merchant.solBalance(feePayer.address)])
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Delivered' }).waitFor()
    t.match(await statusText(page), /Paid 0\.05 USDC/)
    t.equal(await page.locator('#state').textContent(), 'Paid', 'the page says it is paid, not "Payment required"')
    t.notOk(await pay.isVisible(), 'and offers no "Pay" button: paying twice by accident is not one click away')
    const again = page.getByRole('button', { name: 'Buy again' })
    t.ok(await again.isVisible(), '"Buy again" instead')
    t.match(await page.locator('#outcome').innerText(), /1 SOL = [0-9.]+ USDC/, 'the price, formatted')
    const transaction = await page.locator('#receipt-transaction').innerText()
    t.match(transaction, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/, 'the receipt names the transaction')
    t.equal(await page.getByRole('link', { name: /explorer/ }).count(), 0, 'no explorer link for a local chain')
    t.notOk(await page.locator('#raw-json').isVisible(), 'the raw JSON is a click away')
    const after = join(dir, 'after.png')
    await page.screenshot({ path: after, fullPage: true })
    await page.getByText('Raw JSON').click()
    t.match(JSON.parse(await page.locator('#raw-json').innerText()), { data: { mintSymbol: 'SOL' } })
    t.equal(await page.getByRole('link', { name: 'Download the JSON' }).getAttribute('download'), 'token-price-SOL.json')
    t.equal(wallet.asked.length, 1, 'the wallet was asked once')

    t.equal(await merchant.tokenBalance(buyer.address), buyerBefore - PRICE, 'the buyer paid exactly the price, on chain')
    t.equal(await merchant.merchantBalance(), merchantBefore + PRICE, 'the merchant received it')
    const fee = feePayerBefore - await merchant.solBalance(feePayer.address)
    t.ok(fee > 0n && fee <= 10_001n, `the fee payer paid the fee only: ${fee} lamports`)
    const signature = await paid.chain.rpc.getSignatureStatuses([transaction as never]).send()
    t.ok(signature.value[0] !== null, 'the receipt\'s transaction is on chain')
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      copyFileSync(before, join(DOCS, 'paywall-before.png'))
      copyFileSync(after, join(DOCS, 'paywall-after.png'))
    }

    await again.click()
    t.equal(await page.locator('#state').textContent(), 'Payment required', 'a second purchase is a deliberate step')
    t.match(await statusText(page), /A new purchase: press "Pay 0\.05 USDC"/)
    t.equal(wallet.asked.length, 1, '"Buy again" alone asks the wallet nothing')
    await pay.click()
    await page.waitForFunction(previous => {
      const receipt = (globalThis as unknown as { document: { getElementById: (id: string) => { textContent: string } | null } }).document.getElementById('receipt-transaction')
      return receipt !== null && receipt.textContent !== previous
    }, transaction)
    t.not(await page.locator('#receipt-transaction').innerText(), transaction, 'a second payment is a new transaction')
    t.equal(wallet.asked.length, 2)
    t.equal(await merchant.tokenBalance(buyer.address), buyerBefore - 2n * PRICE, 'and a new purchase, paid again')
    t.equal(await merchant.merchantBalance(), merchantBefore + 2n * PRICE)
    onlyMerchantOrigin(t, merchant, session)
  })

  await t.test('the buyer rejects in the wallet: told so, nothing charged', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const session = await open(t, browser, merchant, buyer, '/api/analyze-token/So11111111111111111111111111111111111111112')
    const { page, wallet } = session
    wallet.mode = 'reject'
    t.equal(await page.locator('h1').innerText(), 'Token security analysis')
    await page.getByRole('button', { name: 'Connect wallet' }).click()
    await page.getByRole('button', { name: 'Pay 0.1 USDC' }).and(page.locator(':enabled')).click()
    await page.getByText('You rejected the payment in your wallet; nothing was charged.').waitFor()
    t.equal(wallet.asked.length, 1)
    t.equal(await merchant.tokenBalance(buyer.address), 1_000_000n, 'nothing moved')
    onlyMerchantOrigin(t, merchant, session)
  })

  await t.test('a buyer without enough USDC is told before the wallet is asked', async t => {
    const buyer = await paid.newBuyer(10_000n)
    const session = await open(t, browser, merchant, buyer, '/api/fetch-price/SOL')
    const { page, wallet } = session
    await page.getByRole('button', { name: 'Connect wallet' }).click()
    await page.getByText('Not enough USDC: you have 0.01, the price is 0.05.').waitFor()
    await page.getByRole('button', { name: 'Pay 0.05 USDC' }).and(page.locator(':enabled')).click()
    await page.locator('#status', { hasText: 'Not enough USDC: you have 0.01, the price is 0.05.' }).waitFor()
    t.equal(wallet.asked.length, 0, 'the wallet was never asked')
    t.equal(await merchant.tokenBalance(buyer.address), 10_000n)
    onlyMerchantOrigin(t, merchant, session)
  })

  await t.test("the merchant's refusal is shown as its code and message: the buyer spent the tokens elsewhere before paying", async t => {
    const buyer = await paid.newBuyer(60_000n)
    const session = await open(t, browser, merchant, buyer, '/api/fetch-price/SOL')
    const { page, wallet } = session
    // Between the preparation and the payment the buyer's tokens go elsewhere: the transfer would fail.
    wallet.beforeSigning = async () => { await paid.pay(buyer, 60_000n) }
    const merchantBefore = await merchant.merchantBalance()
    await page.getByRole('button', { name: 'Connect wallet' }).click()
    await page.getByRole('button', { name: 'Pay 0.05 USDC' }).and(page.locator(':enabled')).click()
    await page.locator('#status', { hasText: 'The merchant refused: X402_SIMULATION_FAILED' }).waitFor()
    t.match(await statusText(page), /Nothing was charged\.$/)
    t.equal(await merchant.merchantBalance(), merchantBefore + 60_000n, 'only the buyer\'s own transfer arrived')
    onlyMerchantOrigin(t, merchant, session)
  })

  await t.test('an answer lost on the way is fetched again with the same payment: charged once', async t => {
    const buyer = await paid.newBuyer(1_000_000n)
    const session = await open(t, browser, merchant, buyer, '/api/fetch-price/SOL')
    const { page } = session
    const paidRequests: string[] = []
    // The first paid answer is delivered by the merchant (settled on chain), then the connection is cut.
    await page.route('**/api/fetch-price/SOL', async route => {
      const header = route.request().headers()['payment-signature']
      if (header === undefined) return await route.continue()
      paidRequests.push(header)
      if (paidRequests.length > 1) return await route.continue()
      const delivered = await route.fetch()
      t.equal(delivered.status(), 200, 'the merchant delivered and settled')
      await route.abort('connectionreset')
    })
    const merchantBefore = await merchant.merchantBalance()
    await page.getByRole('button', { name: 'Connect wallet' }).click()
    await page.getByRole('button', { name: 'Pay 0.05 USDC' }).and(page.locator(':enabled')).click()
    await page.getByRole('heading', { name: 'Delivered' }).waitFor()
    t.match(await page.locator('#outcome').innerText(), /fetched again/)
    t.equal(paidRequests.length, 2)
    t.equal(paidRequests[1], paidRequests[0], 'the same payment, payment-identifier included')
    t.equal(await merchant.merchantBalance(), merchantBefore + PRICE, 'charged once')
    t.equal(await merchant.tokenBalance(buyer.address), 1_000_000n - PRICE)
    onlyMerchantOrigin(t, merchant, session, [/net::ERR_CONNECTION_RESET/])
  })
})
