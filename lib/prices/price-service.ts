import { AppError } from '../errors/app-error.js'
import type { PriceRecordBody } from '../../schemas/price.js'
import { createCachedLoader } from './cached-loader.js'
import { createJupiterClient } from './jupiter-client.js'
import type { TokenInfo, UsdQuote } from './jupiter-responses.js'
import type { NetworkName } from '../solana/networks.js'
import { hasTokenList, knownTokenByMint, knownTokenBySymbol, symbolKey, USDC_MINT } from './known-tokens.js'
import { pickSymbolMatch, tokenFromMatch, tokenNotFound, type SymbolMatch } from './resolve-symbol.js'
import { parseTokenInput } from './token-input.js'

export interface PriceServiceOptions {
  /** The data network (DATA_NETWORK) whose tokens are priced; mainnet-beta when absent. */
  network?: NetworkName
  /** Jupiter's base URL (PRICE_API_URL), or the local stand-in's. */
  baseUrl: string
  apiKey?: string
  /** Deadline of one upstream attempt (UPSTREAM_TIMEOUT_MS). */
  timeoutMs: number
  /** How long a price answer is reused (PRICE_CACHE_TTL_MS); 0 disables reuse, not coalescing. */
  priceTtlMs: number
  /** How long a symbol or mint description is reused (TOKEN_CACHE_TTL_MS). */
  tokenTtlMs: number
  /** How long "unknown" and "ambiguous" answers are reused; at most tokenTtlMs. Default 60 s. */
  negativeTtlMs?: number
  /** Entries kept per cache (symbols, mints, prices). Default 1000. */
  cacheMaxEntries?: number
  retryDelayMs?: number
  maxRetryWaitMs?: number
}

/** A token named by a caller: its mint, and its symbol when known without asking upstream. */
export interface ResolvedToken {
  mint: string
  symbol: string | null
}

interface PriceSnapshot {
  quotes: Map<string, UsdQuote>
  fetchedAt: Date
}

/**
 * Prices of mainnet tokens from Jupiter price v3, against USDC or another quote token, with the
 * symbol resolution, caching and coalescing that keep upstream calls few.
 */
export function createPriceService (options: PriceServiceOptions) {
  const client = createJupiterClient(options)
  const maxEntries = options.cacheMaxEntries ?? 1000
  const tokenTtlMs = options.tokenTtlMs
  const negativeTtlMs = Math.min(options.negativeTtlMs ?? 60_000, tokenTtlMs)
  const network = options.network ?? 'mainnet-beta'
  const listed = hasTokenList(network)

  const symbolLookups = createCachedLoader<SymbolMatch>({
    load: async key => pickSymbolMatch(key, await client.searchTokens(key)),
    ttlMs: match => match.kind === 'found' ? tokenTtlMs : negativeTtlMs,
    maxEntries
  })
  const mintLookups = createCachedLoader<TokenInfo | null>({
    load: async mint => (await client.searchTokens(mint)).find(t => t.mint === mint) ?? null,
    ttlMs: info => info === null ? negativeTtlMs : tokenTtlMs,
    maxEntries
  })
  // Keyed by the sorted mints of one upstream call, so a pair's two prices come from one answer.
  const priceLookups = createCachedLoader<PriceSnapshot>({
    load: async key => ({ quotes: await client.getUsdPrices(key.split(',')), fetchedAt: new Date() }),
    ttlMs: () => options.priceTtlMs,
    maxEntries
  })

  /**
   * Cheap enough to run before payment: built-in tokens and mints cost no upstream call, other
   * symbols one token search, cached (answers of "unknown" and "ambiguous" too) and coalesced.
   * Throws 400 VALIDATION_ERROR, 404 TOKEN_NOT_FOUND, 409 AMBIGUOUS_SYMBOL or an upstream error.
   */
  async function resolveToken (input: string): Promise<ResolvedToken> {
    const parsed = parseTokenInput(input)
    if (parsed.kind === 'invalid') {
      throw new AppError('VALIDATION_ERROR', `"${input}" ${parsed.reason}.`, { details: { token: input } })
    }
    if (!listed) throw tokenNotFound(input, ` on ${network}, whose tokens have no market price (prices exist for mainnet-beta tokens)`)
    if (parsed.kind === 'mint') {
      return { mint: parsed.mint, symbol: knownTokenByMint(parsed.mint)?.symbol ?? null }
    }
    const known = knownTokenBySymbol(parsed.symbol)
    if (known !== undefined) return { mint: known.mint, symbol: known.symbol }
    const token = tokenFromMatch(input, await symbolLookups.get(symbolKey(parsed.symbol)))
    return { mint: token.mint, symbol: token.symbol }
  }

  /** Like resolveToken, and a mint outside the built-in table is looked up for its symbol. */
  async function describeToken (input: string): Promise<{ mint: string, symbol: string }> {
    const token = await resolveToken(input)
    if (token.symbol !== null) return { mint: token.mint, symbol: token.symbol }
    const info = await mintLookups.get(token.mint)
    if (info === null) throw tokenNotFound(input)
    return { mint: token.mint, symbol: info.symbol }
  }

  function priceUnavailable (mint: string, symbol: string): AppError {
    return new AppError('PRICE_UNAVAILABLE', `The price source has no reliable price for ${symbol} (${mint}) right now.`, {
      details: { mint }
    })
  }

  /**
   * The price of `tokenInput` in `vsInput` (USDC when absent): usdPrice(token) / usdPrice(quote),
   * both read in one upstream call. Errors: see resolveToken, plus 404 PRICE_UNAVAILABLE and
   * 502/503/504 from the upstream.
   */
  async function getPrice (tokenInput: string, vsInput?: string): Promise<PriceRecordBody> {
    const [token, quote] = await Promise.all([describeToken(tokenInput), describeToken(vsInput ?? USDC_MINT)])
    const snapshot = await priceLookups.get([...new Set([token.mint, quote.mint])].sort().join(','))
    const tokenUsd = snapshot.quotes.get(token.mint)
    if (tokenUsd === undefined) throw priceUnavailable(token.mint, token.symbol)
    const quoteUsd = snapshot.quotes.get(quote.mint)
    if (quoteUsd === undefined) throw priceUnavailable(quote.mint, quote.symbol)
    return {
      id: token.mint,
      mintSymbol: token.symbol,
      vsToken: quote.mint,
      vsTokenSymbol: quote.symbol,
      price: token.mint === quote.mint ? 1 : tokenUsd.usdPrice / quoteUsd.usdPrice,
      usdPrice: tokenUsd.usdPrice,
      ...(tokenUsd.priceChange24h !== null && { priceChange24h: tokenUsd.priceChange24h }),
      ...(tokenUsd.blockId !== null && { blockId: tokenUsd.blockId }),
      fetchedAt: snapshot.fetchedAt.toISOString(),
      source: 'jupiter-price-v3'
    }
  }

  return {
    resolveToken,
    getPrice,
    close: () => client.close()
  }
}

export type PriceService = ReturnType<typeof createPriceService>
