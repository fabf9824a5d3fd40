import type { MarketBody } from '../../schemas/token-analysis.js'
import { AppError } from '../errors/app-error.js'
import { createCachedLoader } from '../prices/cached-loader.js'
import type { JupiterClient } from '../prices/jupiter-client.js'
import type { JupiterTokenRecord } from '../prices/jupiter-market-responses.js'
import type { NetworkName } from '../solana/networks.js'

/** What was learnt of the token's market: a record, no listing, a failed read, or nothing to ask. */
export type MarketRead =
  | { state: 'listed', readAt: Date, record: JupiterTokenRecord }
  | { state: 'not_listed', readAt: Date, reason: string }
  | { state: 'unavailable', reason: string }
  | { state: 'not_applicable', reason: string }

export type MarketClient = Pick<JupiterClient, 'getTokenRecord' | 'quoteExactIn'>

/** Jupiter's own hosts list mainnet-beta tokens only; a mirror or the local stand-in may serve any cluster. */
export function isJupiterHost (baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname
  return host === 'jup.ag' || host.endsWith('.jup.ag')
}

/** Why the configured price API has nothing to say about `network`'s tokens, or null when it may. */
export function marketNotServed (baseUrl: string, network: NetworkName): string | null {
  if (network === 'mainnet-beta' || !isJupiterHost(baseUrl)) return null
  return `Market data does not apply: Jupiter (${baseUrl}) lists mainnet-beta tokens only, and this analysis reads ${network}; a PRICE_API_URL serving ${network} tokens would be used.`
}

/** A plain-words reason for a failed upstream read, the same for the same failure. */
export function upstreamReason (what: string, error: unknown): string {
  const code = error instanceof AppError ? error.code : undefined
  if (code === 'UPSTREAM_TIMEOUT') return `${what} did not answer in time`
  if (code === 'UPSTREAM_UNAVAILABLE') return `${what} was busy or unreachable`
  return `${what} answered with an error`
}

export interface MarketReaderOptions {
  client: MarketClient
  baseUrl: string
  network: NetworkName
  /** How long a token record is reused (the analysis cache keeps whole answers besides). */
  ttlMs: number
  maxEntries?: number
}

/** The token API record of a mint, read once per analysis and cached briefly; never throws. */
export function createMarketReader ({ client, baseUrl, network, ttlMs, maxEntries = 1000 }: MarketReaderOptions) {
  const notServed = marketNotServed(baseUrl, network)
  const records = createCachedLoader<{ readAt: Date, record: JupiterTokenRecord | null }>({
    load: async mint => ({ record: await client.getTokenRecord(mint), readAt: new Date() }),
    ttlMs: () => ttlMs,
    maxEntries
  })

  async function readMarket (mint: string): Promise<MarketRead> {
    if (notServed !== null) return { state: 'not_applicable', reason: notServed }
    try {
      const { record, readAt } = await records.get(mint)
      if (record === null) return { state: 'not_listed', readAt, reason: 'Market data is unavailable: Jupiter\'s token API does not list this mint, so no market for it is known.' }
      return { state: 'listed', readAt, record }
    } catch (error) {
      return { state: 'unavailable', reason: `Market data is unavailable: ${upstreamReason('Jupiter\'s token API', error)}.` }
    }
  }

  return { readMarket, client, notServed }
}

export type MarketReader = ReturnType<typeof createMarketReader>

const finite = (value: number | null | undefined): number | null => typeof value === 'number' && Number.isFinite(value) ? value : null
const count = (value: number | null | undefined): number | null => {
  const number = finite(value)
  return number === null ? null : Math.max(0, Math.round(number))
}
const sum = (a: number | null, b: number | null): number | null => a === null || b === null ? null : a + b

/** The `market` section of the answer, fields renamed from Jupiter's (see the README). */
export function marketBody (read: MarketRead): MarketBody {
  const source = 'jupiter-tokens-v2' as const
  if (read.state !== 'listed') {
    return { available: false, reason: read.reason, source, ...('readAt' in read ? { read_at: read.readAt.toISOString() } : {}) }
  }
  const { record } = read
  const stats = record.stats24h
  const audit = record.audit
  const buy = finite(stats?.buyVolume)
  const sell = finite(stats?.sellVolume)
  return {
    available: true,
    source,
    read_at: read.readAt.toISOString(),
    usd_price: finite(record.usdPrice),
    liquidity_usd: finite(record.liquidity),
    holder_count: count(record.holderCount),
    mcap_usd: finite(record.mcap),
    fdv_usd: finite(record.fdv),
    organic_score: finite(record.organicScore) === null ? null : Math.min(100, Math.max(0, record.organicScore as number)),
    organic_score_label: record.organicScoreLabel ?? null,
    verified: record.isVerified === true,
    tags: record.tags ?? [],
    first_pool_created_at: record.firstPool?.createdAt ?? null,
    stats_24h: stats == null
      ? null
      : {
          volume_usd: sum(buy, sell),
          buy_volume_usd: buy,
          sell_volume_usd: sell,
          price_change_pct: finite(stats.priceChange),
          buys: count(stats.numBuys),
          sells: count(stats.numSells),
          traders: count(stats.numTraders)
        },
    audit: audit == null
      ? null
      : { top_holders_percentage: finite(audit.topHoldersPercentage), dev_mints: count(audit.devMints), is_sus: audit.isSus ?? null }
  }
}
