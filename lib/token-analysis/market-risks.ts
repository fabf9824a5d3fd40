import { THRESHOLDS, type Finding } from './risk-weights.js'
import type { MarketRead } from './market.js'
import type { SellRead } from './sell-check.js'

const usd = (value: number) => `$${Math.round(value).toLocaleString('en-US')}`

/** "5 hours", "40 minutes": how long ago the first pool was created. */
function age (ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000))
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`
  const hours = Math.floor(minutes / 60)
  return `${hours} hour${hours === 1 ? '' : 's'}`
}

/** Findings in Jupiter's token record: liquidity, age, organic score, its own flag, verification. */
export function marketFindings (market: MarketRead | undefined): Finding[] {
  if (market === undefined || market.state === 'not_applicable') return []
  if (market.state !== 'listed') return [{ code: 'MARKET_UNAVAILABLE', params: { reason: market.reason } }]
  const { record, readAt } = market
  const findings: Finding[] = []
  if (record.audit?.isSus === true) findings.push({ code: 'FLAGGED_BY_JUPITER', params: {} })
  const liquidity = record.liquidity
  if (typeof liquidity === 'number' && liquidity < THRESHOLDS.lowLiquidityUsd) {
    findings.push({ code: 'LOW_LIQUIDITY', params: { liquidity: usd(liquidity), threshold: usd(THRESHOLDS.lowLiquidityUsd) } })
  }
  const created = Date.parse(record.firstPool?.createdAt ?? '')
  if (Number.isFinite(created) && readAt.getTime() - created < THRESHOLDS.newTokenMs) {
    findings.push({ code: 'NEW_TOKEN', params: { age: age(readAt.getTime() - created), created: new Date(created).toISOString() } })
  }
  if (record.organicScoreLabel === 'low') {
    findings.push({ code: 'LOW_ORGANIC_SCORE', params: { score: Math.round(record.organicScore ?? 0) } })
  }
  if (record.isVerified !== true) findings.push({ code: 'UNVERIFIED', params: {} })
  return findings
}

/**
 * Findings of the sell quotes. When market data is missing its own finding already says the sale
 * is unknown, so the sell check adds none.
 */
export function sellFindings (sell: SellRead | undefined, market: MarketRead | undefined): Finding[] {
  if (sell === undefined || sell.state === 'not_applicable') return []
  if (sell.state === 'unavailable') return market?.state === 'listed' ? [{ code: 'SELL_CHECK_UNAVAILABLE', params: { reason: sell.reason } }] : []
  const unrouted = sell.quotes.find(quote => !quote.route_found)
  if (unrouted !== undefined) return [{ code: 'NO_SELL_ROUTE', params: { usd: usd(unrouted.usd_value) } }]
  const largest = sell.quotes[sell.quotes.length - 1]
  const impact = largest?.price_impact_pct ?? 0
  if (largest !== undefined && impact >= THRESHOLDS.sellImpactHighPct) {
    return [{ code: 'SELL_IMPACT_HIGH', params: { impact: Math.round(impact * 100) / 100, loss: usd(largest.usd_value * impact / 100) } }]
  }
  return []
}
