import { formatTokenAmount } from '../../lib/payment/catalog.js'
import type { Manifest, RegistryListing, Reputation } from '../documents.js'
import type { McpBuyStep } from '../mcp.js'
import type { BuyStep } from '../steps.js'

/** JSON with bigints as decimal strings (amounts are never floats). */
export function toJson (value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => typeof v === 'bigint' ? v.toString() : v, 2)
}

function percent (rate: number | null): string {
  return rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`
}

function table (rows: string[][]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map(row => row[column].length))) ?? []
  return rows.map(row => row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column])).join('  '))
}

/** Decimals and symbol of the manifest's payment token. */
export function paymentToken (manifest: Manifest): { decimals: number, symbol: string } {
  return { decimals: manifest.payment_decimals, symbol: manifest.services[0]?.payment_token ?? 'tokens' }
}

export function formatManifest (manifest: Manifest): string {
  const { symbol } = paymentToken(manifest)
  const services = manifest.services.map(s => [
    s.name, `${s.method} ${s.endpoint}`, `${formatTokenAmount(BigInt(s.price), manifest.payment_decimals)} ${s.payment_token} (${s.price} base units)`
  ])
  return [
    `${manifest.name} ${manifest.version}: ${manifest.description}`,
    `network     ${manifest.network}`,
    `payment     ${symbol} mint ${manifest.payment_mint} (${manifest.payment_decimals} decimals), paid to ${manifest.payment_address}`,
    'services',
    ...table(services).map(line => `  ${line}`),
    `reputation  ${manifest.reputation_url}`,
    ...(manifest.registry_url === undefined ? [] : [`registry    ${manifest.registry_url}`])
  ].join('\n')
}

export function formatRegistry (listing: RegistryListing): string {
  const header = `registry ${listing.registry_address} on ${listing.network}: ${listing.total} agent${listing.total === 1 ? '' : 's'} (chain read ${listing.fetched_at})`
  const rows = listing.agents.map(agent => [
    agent.name,
    agent.manifest_url,
    `wallet ${agent.wallet}`,
    agent.timestamp === null ? 'time unknown' : new Date(agent.timestamp * 1000).toISOString(),
    agent.signature
  ])
  return [header, ...table(rows).map(line => `  ${line}`)].join('\n')
}

export function formatReputation (reputation: Reputation): string {
  const { merchant, revenue } = reputation
  const failures = Object.entries(reputation.failures).map(([code, count]) => `${code} ×${count}`).join(', ')
  const services = reputation.services.map(s => [
    s.service,
    `${s.requests} requests`,
    `${s.transactions} paid`,
    `${s.deliveries} delivered`,
    percent(s.success_rate),
    `avg ${s.avg_latency_ms ?? 'n/a'} ms, p95 ${s.p95_latency_ms ?? 'n/a'} ms`
  ])
  return [
    `${merchant.name} (pays to ${merchant.payment_address}), window ${reputation.window}, computed ${reputation.computed_at}`,
    `  success rate  ${percent(reputation.success_rate)} (${reputation.deliveries} delivered of ${reputation.transactions} verified payments; ${reputation.requests} requests with a proof)`,
    `  payers        ${reputation.unique_payers}`,
    `  revenue       ${revenue.token_units} ${revenue.token} (${revenue.base_units} base units)`,
    `  failures      ${failures === '' ? 'none' : failures}`,
    `  activity      ${reputation.first_activity ?? 'none'} to ${reputation.last_activity ?? 'none'}`,
    '  per service',
    ...table(services).map(line => `    ${line}`)
  ].join('\n')
}

/** One line per purchase step, for a person watching; amounts in the payment token. */
export function formatStep (step: BuyStep, token: { decimals: number, symbol: string }): string {
  const amount = (units: bigint) => `${formatTokenAmount(units, token.decimals)} ${token.symbol}`
  switch (step.type) {
    case 'request':
      return `→ GET ${step.url} (no payment)`
    case 'payment-required':
      return `← 402 Payment Required: ${step.amountDisplay} ${step.symbol ?? token.symbol} (${step.amount} base units) to ${step.payTo} on ${step.network}`
    case 'requirements-accepted':
      return `✓ matches the manifest's ${step.service} terms (price, recipient, mint)` +
        (step.maxPrice === undefined ? '' : `; within the spending limit of ${step.maxPrice} base units`)
    case 'flow':
      return step.flow === 'x402'
        ? `✓ flow: standard x402 (the official client signs a transfer, the merchant co-signs as fee payer and settles; no SOL spent) — ${step.reason}`
        : `✓ flow: pay-then-prove (pay on chain, then show the signature) — ${step.reason}`
    case 'x402-payment-sent':
      return `→ GET again with ${step.header.toUpperCase()} (a signed transfer the merchant settles after preparing the answer)`
    case 'payment-sent':
      return `→ paid ${amount(step.amount)} with one transferChecked ${step.source} → ${step.destination}\n  signature ${step.signature}`
    case 'payment-confirmed':
      return `✓ payment ${step.commitment}`
    case 'proof-sent':
      return `→ GET again with x-payment-signature and x-payment-wallet (attempt ${step.attempt})`
    case 'delivery-retry':
      return `! not delivered (${step.status ?? 'no answer'}${step.code === undefined ? '' : ` ${step.code}`}); retrying with the same proof in ${(step.delayMs / 1000).toFixed(1)} s`
    case 'delivered':
      return `✓ ${step.status} ${step.redelivered ? 're-delivered (a lost answer this payment had bought; nothing charged again)' : 'delivered'}` +
        (step.receipt === null ? '' : `; receipt: transaction ${step.receipt.transaction}, payer ${step.receipt.payer}, ${step.receipt.network}`)
  }
}

/** One line per step of a purchase through the MCP tools. */
export function formatMcpStep (step: McpBuyStep, token: { decimals: number, symbol: string }): string {
  switch (step.type) {
    case 'mcp-call':
      return `→ tools/call ${step.tool} ${JSON.stringify(step.arguments)}${step.paid ? ' with the payment in _meta["x402/payment"]' : ' (no payment)'}`
    case 'payment-required':
      return `← PaymentRequired: ${step.amountDisplay} ${token.symbol} (${step.amount} base units) to ${step.payTo} on ${step.network}`
    case 'requirements-accepted':
      return `✓ matches the manifest's ${step.service} terms (price, recipient, mint)` +
        (step.maxPrice === undefined ? '' : `; within the spending limit of ${step.maxPrice} base units`)
    case 'payment-signed':
      return `✓ transfer signed by ${step.payer} (x402 exact; the merchant pays the fee and sends it once the result is ready)`
    case 'payment-retry':
      return `! not delivered (${step.reason}); retrying with the same payment in ${(step.delayMs / 1000).toFixed(1)} s`
    case 'delivered':
      return `✓ ${step.redelivered ? 're-delivered (a lost result this payment had bought; nothing charged again)' : 'delivered'}; settled: transaction ${step.receipt.transaction}, payer ${step.receipt.payer ?? 'n/a'}, ${step.receipt.network}`
  }
}
