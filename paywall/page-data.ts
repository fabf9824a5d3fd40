/** What the server puts in the page's `paywall-data` block (lib/paywall/page.ts, PaywallPageData). */
export interface PageData {
  product: string
  description: string
  item: string
  resource: string
  price: { amount: string, formatted: string, symbol: string, decimals: number }
  network: { cluster: string, x402: string, label: string, walletChain: string }
  explorerCluster: string | null
  payTo: string
  mint: string
  prepareUrl: string
  paymentRequired: PaymentRequired | null
}

export interface PaymentRequired {
  x402Version: number
  resource: { url: string } & Record<string, unknown>
  accepts: Array<{ scheme: string, network: string, asset: string, amount: string, payTo: string } & Record<string, unknown>>
  extensions?: Record<string, unknown>
}

export function readPageData (): PageData {
  const block = document.getElementById('paywall-data')
  if (block?.textContent == null) throw new Error('the page carries no payment data')
  return JSON.parse(block.textContent) as PageData
}

/** "0.05" for 50000 base units of a 6-decimal token: exact, never a float (as lib/payment/catalog.ts formats). */
export function formatUnits (baseUnits: string, decimals: number): string {
  const value = BigInt(baseUnits)
  const scale = 10n ** BigInt(decimals)
  const fraction = (value % scale).toString().padStart(decimals, '0').replace(/0+$/, '')
  return fraction === '' ? (value / scale).toString() : `${value / scale}.${fraction}`
}
