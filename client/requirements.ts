import { formatTokenAmount } from '../lib/payment/catalog.js'
import {
  parseDocument,
  PaymentReceiptShape,
  PaymentRequiredShape,
  type Manifest,
  type ManifestService,
  type PaymentReceipt,
  type PaymentRequirement
} from './documents.js'
import { BuyerError } from './errors.js'

/** The one requirement the client pays: the first "exact" one on a Solana network. */
export function readPaymentRequirement (body: unknown, url: string): PaymentRequirement {
  const required = parseDocument(PaymentRequiredShape, body, `the 402 answer of ${url}`)
  const requirement = required.accepts.find(r => r.scheme === 'exact' && r.network.startsWith('solana'))
  if (requirement === undefined) {
    throw new BuyerError('REQUIREMENTS_MISMATCH', `${url} accepts no "exact" payment on Solana`, {
      problems: required.accepts.map(r => `unsupported scheme ${r.scheme} on ${r.network}`)
    })
  }
  return requirement
}

function templateMatches (template: string, path: string): boolean {
  const want = template.split('/')
  const got = path.split('/')
  return want.length === got.length && want.every((segment, i) => segment.startsWith(':') ? got[i] !== '' : segment === got[i])
}

/** The manifest's service whose endpoint template (`/api/fetch-price/:token`) matches the URL's path. */
function findService (manifest: Manifest, url: string): ManifestService | undefined {
  const path = new URL(url).pathname.replace(/\/+$/, '')
  return manifest.services.find(service => service.method.toUpperCase() === 'GET' && templateMatches(service.endpoint, path))
}

/**
 * Compares what the 402 asks for with what the manifest promised (recipient, mint, network,
 * decimals, price of this endpoint), then applies the buyer's spending limit. Returns the price
 * to pay in base units and the service it buys; throws before anything is paid.
 */
export function checkRequirement (requirement: PaymentRequirement, manifest: Manifest, url: string, maxPrice?: bigint):
{ price: bigint, service: ManifestService } {
  const service = findService(manifest, url)
  const price = BigInt(requirement.maxAmountRequired)
  const problems: string[] = []
  if (service === undefined) {
    problems.push(`the manifest lists no paid service for ${new URL(url).pathname}`)
  } else {
    if (BigInt(service.price) !== price) problems.push(`price ${price} differs from the manifest's ${service.price} for ${service.name}`)
    if (requirement.network !== service.payment_network) problems.push(`network ${requirement.network} differs from the manifest's ${service.payment_network}`)
  }
  if (requirement.payTo !== manifest.payment_address) problems.push(`recipient ${requirement.payTo} differs from the manifest's payment_address ${manifest.payment_address}`)
  if (requirement.asset !== manifest.payment_mint) problems.push(`mint ${requirement.asset} differs from the manifest's payment_mint ${manifest.payment_mint}`)
  const decimals = requirement.extra?.decimals
  if (decimals !== undefined && decimals !== manifest.payment_decimals) problems.push(`decimals ${decimals} differ from the manifest's ${manifest.payment_decimals}`)
  if (service === undefined || problems.length > 0) {
    throw new BuyerError('REQUIREMENTS_MISMATCH', `the payment requested by ${url} does not match the merchant's manifest: ${problems.join('; ')}`, { problems })
  }

  if (maxPrice !== undefined && price > maxPrice) {
    const amount = [formatTokenAmount(price, manifest.payment_decimals), requirement.extra?.symbol].filter(Boolean).join(' ')
    throw new BuyerError('SPENDING_LIMIT', `${url} costs ${amount} (${price} base units), above the limit of ${maxPrice} base units; nothing was paid`,
      { price: price.toString(), maxPrice: maxPrice.toString() })
  }
  return { price, service }
}

/** The x-payment-response receipt (base64 JSON), or null when absent or unreadable. */
export function decodeReceipt (header: string | null): PaymentReceipt | null {
  if (header === null) return null
  try {
    return parseDocument(PaymentReceiptShape, JSON.parse(Buffer.from(header, 'base64').toString('utf8')), 'the receipt')
  } catch {
    return null
  }
}
