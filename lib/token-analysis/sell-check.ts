import type { SellCheckBody, SellQuoteBody } from '../../schemas/token-analysis.js'
import { USDC_MINT } from '../prices/known-tokens.js'
import { upstreamReason, type MarketClient, type MarketRead } from './market.js'

/** The two sales quoted: a small one anybody makes, and one ten times larger that shows the depth. */
export const SELL_SIZES_USD = [100, 1000] as const
const USDC_DECIMALS = 6

export type SellRead =
  | { state: 'quoted', readAt: Date, quotes: SellQuoteBody[] }
  | { state: 'unavailable', reason: string }
  | { state: 'not_applicable', reason: string }

/**
 * Base units worth `usd` at `usdPrice`, rounded down. A float estimate: it only sizes the quote,
 * whose own in and out amounts are exact.
 */
export function amountWorth (usd: number, usdPrice: number, decimals: number): bigint {
  const units = Math.floor(usd / usdPrice * 10 ** decimals)
  return Number.isFinite(units) && units > 0 ? BigInt(units) : 0n
}

/** Whole USDC from base units, rounded to the cent. */
const usdcOf = (amount: bigint) => Math.round(Number(amount) / 10 ** (USDC_DECIMALS - 2)) / 100

async function quoteSale (client: MarketClient, mint: string, usd: number, amount: bigint): Promise<SellQuoteBody> {
  const outcome = await client.quoteExactIn(mint, USDC_MINT, amount)
  if (!outcome.routeFound) {
    return { usd_value: usd, in_amount: amount.toString(), route_found: false, out_amount: null, out_usd: null, price_impact_pct: null, venues: [], slot: null }
  }
  const { quote } = outcome
  const impact = Number(quote.priceImpactPct) * 100
  return {
    usd_value: usd,
    in_amount: quote.inAmount,
    route_found: true,
    out_amount: quote.outAmount,
    out_usd: usdcOf(BigInt(quote.outAmount)),
    // Jupiter gives a fraction (0.05 = 5%); rounded to 4 decimals of a percent.
    price_impact_pct: Math.round(Math.abs(impact) * 10_000) / 10_000,
    venues: quote.routePlan.map(step => step.swapInfo.label ?? step.swapInfo.ammKey),
    slot: quote.contextSlot ?? null
  }
}

/**
 * Jupiter quotes (swap API, ExactIn) selling $100 and $1,000 of the token into USDC, sized from the
 * token API's USD price. Never throws: a failed quote makes the check unavailable.
 */
export async function checkSale (client: MarketClient, mint: string, decimals: number, market: MarketRead): Promise<SellRead> {
  if (market.state === 'not_applicable') return { state: 'not_applicable', reason: market.reason }
  if (mint === USDC_MINT) return { state: 'not_applicable', reason: 'The token is USDC, the currency sales are quoted in.' }
  if (market.state !== 'listed') return { state: 'unavailable', reason: 'The sell check is unavailable: without market data there is no USD price to size the sales.' }
  const price = market.record.usdPrice
  if (typeof price !== 'number' || !(price > 0)) {
    return { state: 'unavailable', reason: 'The sell check is unavailable: Jupiter has no USD price for the token, so the sales cannot be sized.' }
  }
  const amounts = SELL_SIZES_USD.map(usd => amountWorth(usd, price, decimals))
  if (amounts.some(amount => amount === 0n)) {
    return { state: 'unavailable', reason: 'The sell check is unavailable: the token\'s USD price is too high to size the sales in base units.' }
  }
  try {
    const quotes = await Promise.all(SELL_SIZES_USD.map((usd, i) => quoteSale(client, mint, usd, amounts[i])))
    return { state: 'quoted', readAt: new Date(), quotes }
  } catch (error) {
    return { state: 'unavailable', reason: `The sell check is unavailable: ${upstreamReason('Jupiter\'s quote API', error)}.` }
  }
}

export function sellCheckBody (read: SellRead): SellCheckBody {
  const source = 'jupiter-swap-v1-quote' as const
  if (read.state !== 'quoted') return { available: false, reason: read.reason, source, quotes: [] }
  return { available: true, source, read_at: read.readAt.toISOString(), quotes: read.quotes }
}
