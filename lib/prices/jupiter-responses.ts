import { isAddress } from '@solana/kit'

/**
 * Readers of Jupiter's answers. They trust nothing: a body of the wrong shape throws
 * MalformedResponseError (the client turns it into an upstream error), while optional fields of
 * the wrong type are read as absent.
 */
export class MalformedResponseError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'MalformedResponseError'
  }
}

/** One token's entry of `/price/v3`. */
export interface UsdQuote {
  usdPrice: number
  /** Solana block of the last price update, when Jupiter gives it. */
  blockId: number | null
  /** Change of the USD price over 24 hours, in percent. */
  priceChange24h: number | null
}

/** The parts of a `/tokens/v2/search` result we use. */
export interface TokenInfo {
  mint: string
  symbol: string
  name: string
  decimals: number | null
  verified: boolean
  liquidity: number | null
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function finiteOrNull (value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

/**
 * `/price/v3?ids=` answers an object keyed by mint. Tokens without a reliable price are left out
 * (or, defensively, null, with a null usdPrice, or priced at zero or below): they are absent from
 * the returned map. Entries nobody asked for are ignored.
 */
export function parsePriceV3 (body: unknown, ids: readonly string[]): Map<string, UsdQuote> {
  if (!isRecord(body)) throw new MalformedResponseError('price answer is not an object')
  // Older versions wrapped prices in { data, timeTaken }: a value that is no entry gives them away.
  for (const [key, entry] of Object.entries(body)) {
    if (entry !== null && !isRecord(entry)) throw new MalformedResponseError(`price answer value "${key}" is not an entry`)
  }
  const quotes = new Map<string, UsdQuote>()
  for (const id of ids) {
    const entry = body[id]
    if (!isRecord(entry) || entry.usdPrice === null) continue
    const { usdPrice } = entry
    if (typeof usdPrice !== 'number' || !Number.isFinite(usdPrice)) {
      throw new MalformedResponseError(`usdPrice of ${id} is not a number`)
    }
    if (usdPrice <= 0) continue
    quotes.set(id, {
      usdPrice,
      blockId: Number.isSafeInteger(entry.blockId) ? entry.blockId as number : null,
      priceChange24h: finiteOrNull(entry.priceChange24h)
    })
  }
  return quotes
}

/**
 * `/tokens/v2/search?query=` answers an array of token records. Records without a valid mint
 * or a symbol are skipped rather than failing the whole answer.
 */
export function parseTokenSearch (body: unknown): TokenInfo[] {
  if (!Array.isArray(body)) throw new MalformedResponseError('search answer is not an array')
  const tokens: TokenInfo[] = []
  for (const item of body) {
    if (!isRecord(item)) continue
    const { id, symbol } = item
    if (typeof id !== 'string' || !isAddress(id) || typeof symbol !== 'string' || symbol === '') continue
    const tags = Array.isArray(item.tags) ? item.tags : []
    tokens.push({
      mint: id,
      symbol,
      name: typeof item.name === 'string' ? item.name : '',
      decimals: Number.isSafeInteger(item.decimals) ? item.decimals as number : null,
      verified: item.isVerified === true || tags.includes('verified'),
      liquidity: finiteOrNull(item.liquidity)
    })
  }
  return tokens
}
