/**
 * What the server puts in the payment page's `paywall-data` block and the page's script reads:
 * types only, shared by lib/paywall/page.ts and the browser bundle (paywall/).
 */
export interface PaywallPageData {
  product: string
  description: string
  /** What is being bought: the route's parameters as the buyer wrote them (a token symbol, a mint). */
  item: string
  resource: string
  price: { amount: string, formatted: string, symbol: string, decimals: number }
  /** The cluster, the x402 network (v1 name), a label for people, and the wallet-standard chain the wallet signs for. */
  network: { cluster: string, x402: string, label: string, walletChain: string }
  /** `cluster` query of the Solana explorer for receipts; null on a local chain (the explorer cannot see it). */
  explorerCluster: string | null
  payTo: string
  mint: string
  prepareUrl: string
  /** The PAYMENT-REQUIRED header of this 402, decoded: the page pays one of its `accepts`. */
  paymentRequired: PagePaymentRequired | null
}

/** The parts of an x402 v2 PaymentRequired the page reads. */
export interface PagePaymentRequired {
  x402Version: number
  resource: { url: string } & Record<string, unknown>
  accepts: Array<{ scheme: string, network: string, asset: string, amount: string, payTo: string } & Record<string, unknown>>
  extensions?: Record<string, unknown>
}
