import type { PagePaymentRequired, PaywallPageData } from '../lib/paywall/page-data.js'

export type PageData = PaywallPageData
export type PaymentRequired = PagePaymentRequired

export function readPageData (): PageData {
  const block = document.getElementById('paywall-data')
  if (block?.textContent == null) throw new Error('the page carries no payment data')
  return JSON.parse(block.textContent) as PageData
}
