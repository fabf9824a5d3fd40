import { Type, type Static } from '@sinclair/typebox'
import { SolanaAddress } from './common.js'
import { ref } from './ref.js'
import { USDC_MAINNET_MINT } from './networks.js'

/**
 * What a caller may write for a token (`:token`, `?vs=`): a symbol of 1 to 20 letters, digits,
 * `.`, `_` or `-` with an optional leading `$`, or a base58 mint address. Symbols are at most 20
 * characters and mints at least 32, so the two forms never overlap. Route schemas use this pattern,
 * so most malformed input is refused by validation; `parseTokenInput` also checks that a mint
 * decodes to 32 bytes, which a pattern cannot.
 */
export const TOKEN_INPUT_PATTERN = '^(\\$?[A-Za-z0-9._-]{1,20}|[1-9A-HJ-NP-Za-km-z]{32,44})$'

const Mint = (description: string, example: string) =>
  Type.String({ pattern: SolanaAddress.pattern, description, examples: [example] })

/**
 * The price of one token against a quote token: the record of Jupiter's former price API
 * (`id`, `mintSymbol`, `vsToken`, `vsTokenSymbol`, `price`) plus fields from the current one.
 */
export const PriceRecord = Type.Object({
  id: Mint('mint of the priced token (mainnet)', 'So11111111111111111111111111111111111111112'),
  mintSymbol: Type.String({ description: 'symbol of the priced token', examples: ['SOL'] }),
  vsToken: Mint('mint of the quote token (mainnet); USDC unless `vs` chose another', USDC_MAINNET_MINT),
  vsTokenSymbol: Type.String({ description: 'symbol of the quote token', examples: ['USDC'] }),
  price: Type.Number({
    minimum: 0,
    description: 'how many quote tokens one whole priced token is worth: usdPrice(id) / usdPrice(vsToken)',
    examples: [147.4947494749]
  }),
  usdPrice: Type.Number({ minimum: 0, description: 'USD price of one whole priced token', examples: [147.48] }),
  priceChange24h: Type.Optional(Type.Number({ description: 'change of the USD price over 24 hours, in percent; absent when the source has none', examples: [1.29] })),
  blockId: Type.Optional(Type.Integer({ description: 'Solana mainnet block of the last update of the USD price; absent when the source has none', examples: [348004023] })),
  fetchedAt: Type.String({
    format: 'date-time',
    description: 'when the price was read from the source, ISO 8601 UTC (prices are reused for a few seconds)',
    examples: ['2026-09-01T12:00:00.000Z']
  }),
  source: Type.Literal('jupiter-price-v3', { description: 'where the price comes from' })
}, {
  $id: 'PriceRecord',
  additionalProperties: false,
  description: 'Price of a mainnet token against a quote token, whatever network payments use.',
  examples: [{
    id: 'So11111111111111111111111111111111111111112',
    mintSymbol: 'SOL',
    vsToken: USDC_MAINNET_MINT,
    vsTokenSymbol: 'USDC',
    price: 147.4947494749,
    usdPrice: 147.48,
    priceChange24h: 1.29,
    blockId: 348004023,
    fetchedAt: '2026-09-01T12:00:00.000Z',
    source: 'jupiter-price-v3'
  }]
})

export type PriceRecordBody = Static<typeof PriceRecord>

/** Body of GET /api/fetch-price/:token. */
export const PriceResponse = Type.Object({
  data: ref(PriceRecord)
}, { $id: 'PriceResponse', additionalProperties: false, description: 'A price lookup answer.' })

export type PriceResponseBody = Static<typeof PriceResponse>

/** `:token` of GET /api/fetch-price/:token and `token` of the fetch_price MCP tool. */
export const TokenToPrice = Type.String({
  pattern: TOKEN_INPUT_PATTERN,
  description: 'symbol (case-insensitive, optional leading $) or base58 mint address',
  examples: ['SOL', '$WIF', 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN']
})

/** `?vs=` of GET /api/fetch-price/:token and `vs` of the fetch_price MCP tool. */
export const QuoteToken = Type.String({
  pattern: TOKEN_INPUT_PATTERN,
  description: 'quote token, symbol or mint; USDC when absent',
  // The docs' "Try it out" fills in the first example: SOL would price SOL in SOL.
  examples: ['USDC']
})

/** Path parameters of GET /api/fetch-price/:token: the route's schema and its bazaar discovery metadata. */
export const FetchPriceParams = Type.Object({ token: TokenToPrice })

/** Query of GET /api/fetch-price/:token: the route's schema and its bazaar discovery metadata. */
export const FetchPriceQuery = Type.Object({ vs: Type.Optional(QuoteToken) })
