import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A local stand-in of Jupiter's price v3 (`/price/v3?ids=`), token search v2
 * (`/tokens/v2/search?query=`) and swap v1 quote (`/swap/v1/quote`) APIs, answering in the formats
 * of the real samples in test/fixtures/samples/token-data/ (real Jupiter answers and Jupiter's
 * OpenAPI examples). It keeps a token table with USD prices and market facts, counts calls per
 * path, and can be told to fail. Standalone on purpose: it imports nothing from the service.
 *
 * Quotes follow a constant-product pool holding half the token's `liquidity` in USDC: selling x
 * dollars into a reserve R loses x / (R + x), which is the price impact reported.
 */

export interface PriceApiToken {
  mint: string
  symbol: string
  name: string
  decimals: number
  /** null: Jupiter knows the token but has no reliable price, so /price/v3 leaves it out. */
  usdPrice: number | null
  /** Default true. */
  verified?: boolean
  /** USD liquidity; default 1,000,000. */
  liquidity?: number
  /** Percent; default 0. */
  priceChange24h?: number
  /** firstPool.createdAt (ISO 8601); default 2024-06-05. */
  firstPoolCreatedAt?: string
  /** organicScore; default 95 when verified, 50 when not (label high >= 70, medium >= 40, low). */
  organicScore?: number
  /** audit.isSus; absent by default, as Jupiter leaves it out for most tokens. */
  isSus?: boolean
  /** false: the quote API finds no route selling the token (COULD_NOT_FIND_ANY_ROUTE). Default true. */
  sellable?: boolean
}

export type FailureMode =
  | { mode: 'error', status?: number }
  | { mode: 'rate-limit', retryAfterSeconds?: number }
  | { mode: 'slow', delayMs: number }
  | { mode: 'malformed' }
  | { mode: 'wrong-shape' }

/** A failure, for every request or the next `times` ones, on both paths or one. */
export type Failure = FailureMode & { times?: number, path?: ApiPath }

export const PRICE_PATH = '/price/v3'
export const SEARCH_PATH = '/tokens/v2/search'
export const QUOTE_PATH = '/swap/v1/quote'
export type ApiPath = typeof PRICE_PATH | typeof SEARCH_PATH | typeof QUOTE_PATH

export interface RecordedRequest {
  path: string
  query: Record<string, string>
  apiKey: string | undefined
}

/** Mainnet tokens with plausible prices. */
export const DEFAULT_TOKENS: readonly PriceApiToken[] = [
  { mint: 'So11111111111111111111111111111111111111112', symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, usdPrice: 147.48, liquidity: 621_679_197, priceChange24h: 1.29 },
  { mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', symbol: 'USDC', name: 'USD Coin', decimals: 6, usdPrice: 0.9999, liquidity: 522_175_174, priceChange24h: -0.003 },
  { mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', symbol: 'USDT', name: 'USDT', decimals: 6, usdPrice: 1.0002, liquidity: 98_000_000, priceChange24h: 0.01 },
  { mint: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', symbol: 'JUP', name: 'Jupiter', decimals: 6, usdPrice: 0.4056, liquidity: 2_992_387, priceChange24h: 0.53 },
  { mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', symbol: 'Bonk', name: 'Bonk', decimals: 5, usdPrice: 0.0000185, liquidity: 12_400_000, priceChange24h: -2.4 },
  { mint: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm', symbol: 'WIF', name: 'dogwifhat', decimals: 6, usdPrice: 0.87, liquidity: 9_800_000, priceChange24h: 3.1 },
  { mint: 'jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL', symbol: 'JTO', name: 'JITO', decimals: 9, usdPrice: 1.92, liquidity: 4_100_000, priceChange24h: 0.8 },
  { mint: 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3', symbol: 'PYTH', name: 'Pyth Network', decimals: 6, usdPrice: 0.146, liquidity: 3_300_000, priceChange24h: -1.2 },
  { mint: '4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R', symbol: 'RAY', name: 'Raydium', decimals: 6, usdPrice: 2.41, liquidity: 7_500_000, priceChange24h: 0.4 },
  { mint: 'mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So', symbol: 'mSOL', name: 'Marinade staked SOL', decimals: 9, usdPrice: 188.9, liquidity: 35_000_000, priceChange24h: 1.3 },
  { mint: 'J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn', symbol: 'JitoSOL', name: 'Jito Staked SOL', decimals: 9, usdPrice: 182.3, liquidity: 80_000_000, priceChange24h: 1.3 }
]

/**
 * Tokens that exercise each market risk of the analysis (none exists on a chain until created at
 * these addresses): no sell route, a high sell impact, low liquidity, a pool opened an hour ago,
 * a low organic score, Jupiter's suspicious flag. The local CLI serves them besides DEFAULT_TOKENS.
 */
export const RISK_TOKENS: readonly PriceApiToken[] = [
  { mint: 'NoRouteXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', symbol: 'NOROUTE', name: 'No Route Coin', decimals: 6, usdPrice: 0.01, verified: false, liquidity: 50_000, sellable: false },
  { mint: 'ThinPooLXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', symbol: 'THIN', name: 'Thin Pool Coin', decimals: 6, usdPrice: 0.02, verified: false, liquidity: 8_000 },
  { mint: 'ShaLLowXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', symbol: 'SHALLOW', name: 'Shallow Coin', decimals: 6, usdPrice: 0.5, verified: true, liquidity: 30_000 },
  { mint: 'FreshLaunchXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', symbol: 'FRESH', name: 'Fresh Launch', decimals: 6, usdPrice: 0.001, verified: false, liquidity: 2_000_000, firstPoolCreatedAt: 'one-hour-ago' },
  { mint: 'SusCoinXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', symbol: 'SUS', name: 'Suspicious Coin', decimals: 6, usdPrice: 0.03, verified: false, liquidity: 2_000_000, organicScore: 8, isSus: true }
]

const MAX_PRICE_IDS = 50
const MAX_SEARCH_RESULTS = 20
const FIRST_BLOCK_ID = 348_004_023
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const CREATED_AT = '2024-06-05T08:55:25.527Z'

interface TableEntry extends Required<Omit<PriceApiToken, 'isSus'>> {
  isSus?: boolean
  blockId: number
}

/** 'one-hour-ago' is resolved at answer time, so a "new" token stays new however long the stand-in runs. */
function poolCreatedAt (value: string): string {
  return value === 'one-hour-ago' ? new Date(Date.now() - 3_600_000).toISOString() : value
}

const organicLabel = (score: number) => score >= 70 ? 'high' : score >= 40 ? 'medium' : 'low'

export async function startPriceApi (options: { port?: number, host?: string, tokens?: readonly PriceApiToken[], apiKey?: string } = {}) {
  const table = new Map<string, TableEntry>()
  let nextBlockId = FIRST_BLOCK_ID
  let failure: Failure | null = null
  let counts: Record<string, number> = {}
  let requests: RecordedRequest[] = []
  const slowAnswers = new Set<NodeJS.Timeout>()

  function addToken (token: PriceApiToken): void {
    const verified = token.verified ?? true
    table.set(token.mint, {
      verified,
      liquidity: 1_000_000,
      priceChange24h: 0,
      firstPoolCreatedAt: CREATED_AT,
      organicScore: verified ? 95 : 50,
      isSus: undefined as unknown as boolean,
      sellable: true,
      ...token,
      blockId: nextBlockId++
    })
  }
  for (const token of options.tokens ?? DEFAULT_TOKENS) addToken(token)

  function priceEntry (token: TableEntry) {
    return {
      createdAt: CREATED_AT,
      liquidity: token.liquidity,
      usdPrice: token.usdPrice,
      blockId: token.blockId,
      decimals: token.decimals,
      priceChange24h: token.priceChange24h
    }
  }

  function searchEntry (token: TableEntry) {
    const supply = 1_000_000_000
    return {
      id: token.mint,
      name: token.name,
      symbol: token.symbol,
      icon: `https://price-api.localnet.invalid/icons/${token.mint}.png`,
      decimals: token.decimals,
      tokenProgram: TOKEN_PROGRAM,
      createdAt: CREATED_AT,
      circSupply: supply,
      totalSupply: supply,
      firstPool: { id: token.mint, createdAt: poolCreatedAt(token.firstPoolCreatedAt) },
      holderCount: 100_000,
      audit: { ...(token.isSus !== undefined && { isSus: token.isSus }), mintAuthorityDisabled: true, freezeAuthorityDisabled: true, topHoldersPercentage: 12.5, devMints: 1 },
      organicScore: token.organicScore,
      organicScoreLabel: organicLabel(token.organicScore),
      isVerified: token.verified,
      tags: token.verified ? ['community', 'strict', 'verified'] : ['community'],
      fdv: (token.usdPrice ?? 0) * supply,
      mcap: (token.usdPrice ?? 0) * supply,
      ...(token.usdPrice !== null && { usdPrice: token.usdPrice, priceBlockId: token.blockId }),
      liquidity: token.liquidity,
      stats24h: {
        priceChange: token.priceChange24h,
        holderChange: 0,
        liquidityChange: 0,
        volumeChange: 0,
        buyVolume: token.liquidity / 4,
        sellVolume: token.liquidity / 5,
        numBuys: 1200,
        numSells: 1100,
        numTraders: 640
      },
      updatedAt: new Date().toISOString()
    }
  }

  function answerPrices (query: URLSearchParams): [number, unknown] {
    const ids = (query.get('ids') ?? '').split(',').filter(id => id !== '')
    if (ids.length === 0) return [400, { error: 'ids is required' }]
    if (ids.length > MAX_PRICE_IDS) return [400, { error: `at most ${MAX_PRICE_IDS} ids` }]
    const body: Record<string, unknown> = {}
    for (const id of ids) {
      const token = table.get(id)
      if (token !== undefined && token.usdPrice !== null) body[id] = priceEntry(token)
    }
    return [200, body]
  }

  // Several comma-separated mints: those tokens. Otherwise symbols and names containing the
  // query, exact symbol matches first, then by liquidity.
  function answerSearch (query: URLSearchParams): [number, unknown] {
    const text = (query.get('query') ?? '').trim()
    if (text === '') return [400, { error: 'query is required' }]
    const mints = text.split(',')
    if (mints.every(m => table.has(m))) return [200, mints.map(m => searchEntry(table.get(m) as TableEntry))]
    const folded = text.toLowerCase()
    const exact = (t: TableEntry) => t.symbol.toLowerCase() === folded ? 1 : 0
    const found = [...table.values()]
      .filter(t => t.symbol.toLowerCase().includes(folded) || t.name.toLowerCase().includes(folded) || t.mint === text)
      .sort((a, b) => exact(b) - exact(a) || b.liquidity - a.liquidity)
      .slice(0, MAX_SEARCH_RESULTS)
    return [200, found.map(searchEntry)]
  }

  // Jupiter's refusal when nothing routes the pair (HTTP 400, see jupiter-swap-v1-quote-no-route.json).
  const noRoute = (): [number, unknown] => [400, { error: 'Could not find any route', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' }]

  /** ExactIn quotes through one constant-product pool per token, USDC side = liquidity / 2. */
  function answerQuote (query: URLSearchParams): [number, unknown] {
    const inputMint = query.get('inputMint') ?? ''
    const outputMint = query.get('outputMint') ?? ''
    const amountText = query.get('amount') ?? ''
    if (!/^[1-9][0-9]*$/.test(amountText) || inputMint === '' || outputMint === '') return [400, { error: 'inputMint, outputMint and amount are required', errorCode: 'INVALID_REQUEST' }]
    if ((query.get('swapMode') ?? 'ExactIn') !== 'ExactIn') return [400, { error: 'only ExactIn is served here', errorCode: 'INVALID_REQUEST' }]
    const input = table.get(inputMint)
    const output = table.get(outputMint)
    if (input === undefined) return [400, { error: `The token ${inputMint} is not tradable`, errorCode: 'TOKEN_NOT_TRADABLE' }]
    if (output === undefined || input.usdPrice === null || output.usdPrice === null || !input.sellable || input.liquidity <= 0) return noRoute()
    const amount = BigInt(amountText)
    const valueIn = Number(amount) / 10 ** input.decimals * input.usdPrice
    const reserve = input.liquidity / 2
    const impact = valueIn / (reserve + valueIn)
    const outAmount = BigInt(Math.floor(valueIn * (1 - impact) / output.usdPrice * 10 ** output.decimals))
    const slippageBps = Number(query.get('slippageBps') ?? '50')
    const ammKey = `Pool${input.mint.slice(4)}`.slice(0, 44)
    return [200, {
      inputMint,
      inAmount: amount.toString(),
      outputMint,
      outAmount: outAmount.toString(),
      otherAmountThreshold: (outAmount * BigInt(10_000 - slippageBps) / 10_000n).toString(),
      swapMode: 'ExactIn',
      slippageBps,
      platformFee: null,
      priceImpactPct: impact.toFixed(10),
      routePlan: [{
        swapInfo: { ammKey, label: 'Local CPMM', inputMint, outputMint, inAmount: amount.toString(), outAmount: outAmount.toString(), feeAmount: '0', feeMint: outputMint },
        percent: 100,
        bps: 10_000
      }],
      contextSlot: 324_307_186 + nextBlockId,
      timeTaken: 0.002
    }]
  }

  function send (response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(body)
  }

  function currentFailure (path: string): FailureMode | null {
    if (failure === null || (failure.path !== undefined && failure.path !== path)) return null
    const active = failure
    if (active.times !== undefined && --active.times <= 0) failure = null
    return active
  }

  function handle (request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://localhost')
    const path = url.pathname
    const apiKey = request.headers['x-api-key'] as string | undefined
    counts[path] = (counts[path] ?? 0) + 1
    requests.push({ path, query: Object.fromEntries(url.searchParams), apiKey })

    if (request.method !== 'GET') return send(response, 405, JSON.stringify({ error: 'Method Not Allowed' }))
    if (path !== PRICE_PATH && path !== SEARCH_PATH && path !== QUOTE_PATH) return send(response, 404, JSON.stringify({ error: 'Not Found' }))
    if (options.apiKey !== undefined && apiKey !== options.apiKey) return send(response, 401, JSON.stringify({ error: 'Unauthorized' }))

    const fault = currentFailure(path)
    if (fault?.mode === 'error') return send(response, fault.status ?? 500, JSON.stringify({ error: 'Internal Server Error' }))
    if (fault?.mode === 'rate-limit') {
      return send(response, 429, JSON.stringify({ error: 'Too Many Requests' }), { 'retry-after': String(fault.retryAfterSeconds ?? 1) })
    }
    if (fault?.mode === 'wrong-shape') return send(response, 200, path === PRICE_PATH ? '[]' : '{"data":[]}')

    const [status, body] = path === PRICE_PATH
      ? answerPrices(url.searchParams)
      : path === SEARCH_PATH ? answerSearch(url.searchParams) : answerQuote(url.searchParams)
    const text = JSON.stringify(body)
    if (fault?.mode === 'malformed') return send(response, 200, text.slice(0, Math.floor(text.length / 2)))
    if (fault?.mode === 'slow') {
      const timer = setTimeout(() => {
        slowAnswers.delete(timer)
        if (!response.destroyed) send(response, status, text)
      }, fault.delayMs)
      slowAnswers.add(timer)
      return
    }
    send(response, status, text)
  }

  const server = createServer(handle)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve())
  })
  const { address, port } = server.address() as AddressInfo

  return {
    url: `http://${address}:${port}`,
    /** Sets a token's USD price; null makes /price/v3 leave it out. */
    setPrice (mint: string, usdPrice: number | null): void {
      const token = table.get(mint)
      if (token === undefined) throw new Error(`price-api: unknown mint ${mint}`)
      token.usdPrice = usdPrice
      token.blockId = nextBlockId++
    },
    addToken,
    removeToken (mint: string): void {
      table.delete(mint)
    },
    /** Makes requests fail (see Failure); null answers normally again. */
    fail (next: Failure | null): void {
      failure = next === null ? null : { ...next }
    },
    /** Requests received per path, failed ones included. */
    calls (): Record<string, number> {
      return { [PRICE_PATH]: 0, [SEARCH_PATH]: 0, [QUOTE_PATH]: 0, ...counts }
    },
    /** Every request received, oldest first. */
    requests (): RecordedRequest[] {
      return [...requests]
    },
    resetCalls (): void {
      counts = {}
      requests = []
    },
    async stop (): Promise<void> {
      for (const timer of slowAnswers) clearTimeout(timer)
      slowAnswers.clear()
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
    }
  }
}

export type PriceApi = Awaited<ReturnType<typeof startPriceApi>>
