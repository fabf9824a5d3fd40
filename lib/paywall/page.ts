import type { HttpAnswer } from '../http/http-answer.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import { formatTokenAmount, PAYMENT_TOKEN_DECIMALS, type PaidServiceName } from '../payment/catalog.js'
import type { NetworkName } from '../solana/networks.js'
import type { X402NetworkName } from '../x402/networks.js'
import { X402_HEADERS } from '../x402/payment-headers.js'
import type { PaywallAssets } from './assets.js'
import type { PagePaymentRequired, PaywallPageData } from './page-data.js'

export interface PaywallPageOptions {
  assets: PaywallAssets
  symbol: string
  cluster: NetworkName
  x402Network: X402NetworkName
  payTo: string
  mint: string
  prepareUrl: string
  /** The products sold: the page names the one asked for by its title. */
  catalogue: Catalogue
}

const WALLET_CHAINS: Record<X402NetworkName, string> = { solana: 'solana:mainnet', 'solana-devnet': 'solana:devnet', 'solana-testnet': 'solana:testnet', 'solana-localnet': 'solana:localnet' }
const EXPLORER_CLUSTERS: Record<NetworkName, string | null> = { 'mainnet-beta': '', devnet: 'devnet', testnet: 'testnet', localnet: null }
const NETWORK_LABELS: Record<X402NetworkName, string> = { solana: 'Solana mainnet', 'solana-devnet': 'Solana devnet', 'solana-testnet': 'Solana testnet', 'solana-localnet': 'a local Solana chain' }

/**
 * Content-Security-Policy of the page: its script and style are files of this origin (no inline
 * code, so no 'unsafe-inline'), it talks to this origin only, and wallet icons are data: URIs.
 */
export const PAYWALL_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
/** The headers helmet gives an HTML document, which the JSON answers do without (plugins/app/response-headers.ts). */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAYWALL_CSP,
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin'
} as const

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)
// JSON inside a <script type="application/json"> block: nothing may close the element or start a comment.
const embedJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')

/**
 * The 402 for a person: the same status and headers as the JSON challenge (PAYMENT-REQUIRED
 * included) but an HTML page that names the product, the price and the terms, and whose script
 * pays with the browser's wallet. Rendered per request: only browsers' navigations come here.
 */
export function createPaywallPage (options: PaywallPageOptions) {
  const { assets } = options
  return function paywallPage (service: PaidServiceName, request: { params?: unknown, url: string }, challenge: HttpAnswer, resource: string): HttpAnswer {
    const paid = options.catalogue.product(service)
    const formatted = formatTokenAmount(paid.price, PAYMENT_TOKEN_DECIMALS)
    const header = challenge.headers[X402_HEADERS.paymentRequired]
    const params = request.params !== null && typeof request.params === 'object' ? Object.values(request.params).map(String) : []
    const data: PaywallPageData = {
      product: paid.tool.title,
      description: paid.description,
      item: params.join(' '),
      resource,
      price: { amount: paid.price.toString(), formatted, symbol: options.symbol, decimals: PAYMENT_TOKEN_DECIMALS },
      network: { cluster: options.cluster, x402: options.x402Network, label: NETWORK_LABELS[options.x402Network], walletChain: WALLET_CHAINS[options.x402Network] },
      explorerCluster: EXPLORER_CLUSTERS[options.cluster],
      payTo: options.payTo,
      mint: options.mint,
      prepareUrl: options.prepareUrl,
      paymentRequired: header === undefined ? null : JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PagePaymentRequired
    }
    return { statusCode: challenge.statusCode, headers: { ...challenge.headers, ...PAGE_HEADERS }, body: render(data, assets) }
  }
}

function render (data: PaywallPageData, assets: PaywallAssets): string {
  const price = `${data.price.formatted} ${data.price.symbol}`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`${data.product}: ${data.item}`)} — ${escapeHtml(price)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.style.url}">
<script type="module" src="${assets.script.url}"></script>
</head>
<body>
<main>
<p class="eyebrow" id="state">Payment required</p>
<h1>${escapeHtml(data.product)}</h1>
<p class="item"><span class="label">For</span> <strong id="item">${escapeHtml(data.item)}</strong></p>
<p class="description">${escapeHtml(data.description)}</p>
<dl class="terms">
<dt>Price</dt><dd id="price">${escapeHtml(price)}</dd>
<dt>Network</dt><dd>${escapeHtml(data.network.label)}</dd>
<dt>Paid to</dt><dd><code>${escapeHtml(data.payTo)}</code></dd>
<dt>Token</dt><dd id="token">${escapeHtml(data.price.symbol)} <code>${escapeHtml(data.mint)}</code></dd>
</dl>
<div class="actions">
<label for="wallet-choice" id="wallet-choice-label" hidden>Wallet</label>
<select id="wallet-choice" hidden></select>
<button type="button" id="connect" disabled>Connect wallet</button>
<button type="button" id="pay" hidden disabled>Pay ${escapeHtml(price)}</button>
<button type="button" id="again" class="secondary" hidden>Buy again</button>
</div>
<p id="status" role="status" aria-live="polite">Looking for a Solana wallet in this browser…</p>
<section id="outcome" aria-live="polite" tabindex="-1" hidden></section>
<noscript><p>This page needs JavaScript and a Solana wallet extension to pay. Programs can pay with x402: the terms are in the PAYMENT-REQUIRED header.</p></noscript>
</main>
<script type="application/json" id="paywall-data">${embedJson(data)}</script>
</body>
</html>
`
}
