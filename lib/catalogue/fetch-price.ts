import { checkTokenInputs } from '../prices/check-token-inputs.js'
import { FetchPriceParams, FetchPriceQuery, PriceRecord, PriceResponse, type PriceResponseBody } from '../../schemas/price.js'
import type { Product } from './product.js'

/** Longest Retry-After the price client waits for between its two attempts (lib/prices/jupiter-client.ts). */
export const UPSTREAM_RETRY_WAIT_MAX_MS = 1000

const text = (value: unknown) => typeof value === 'string' ? value : undefined

/** The price of a token from Jupiter, 0.05 USDC. */
export const FETCH_PRICE: Product = {
  name: 'fetch-price',
  method: 'GET',
  path: '/api/fetch-price/:token',
  price: 50_000n,
  description: 'Current USD-quoted price of a Solana token (by symbol or mint), optionally against another quote token.',
  params: FetchPriceParams,
  query: FetchPriceQuery,
  output: PriceResponse,
  example: { params: { token: 'SOL' }, query: { vs: 'USDC' }, output: { data: (PriceRecord.examples as unknown[])[0] } },
  tool: {
    name: 'fetch_price',
    title: 'Token price',
    summary: 'Current price of a Solana token (symbol such as SOL, or mint address) in USDC or in another quote token given as vs, from Jupiter: price, USD price, both tokens and the time it was fetched.'
  },
  operation: {
    id: 'fetchPrice',
    summary: dataNetwork => `Price of a Solana token (${dataNetwork}, the merchant's data network), in USDC or another quote token`,
    description: dataNetwork => 'Jupiter price v3: `price` = usdPrice(token) / usdPrice(vs). Symbols and mints resolve against the token ' +
      `list of ${dataNetwork}; Jupiter lists mainnet-beta tokens only. Unknown or ambiguous tokens are answered ` +
      '404/409 before any payment is asked; every failure after payment leaves the proof unredeemed.',
    delivered: 'the price, paid for; the receipt is in x-payment-response',
    errors: ['VALIDATION_ERROR', 'TOKEN_NOT_FOUND', 'PRICE_UNAVAILABLE', 'AMBIGUOUS_SYMBOL', 'PAYMENT_IN_PROGRESS',
      'UPSTREAM_ERROR', 'STORE_UNAVAILABLE', 'RPC_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT']
  },
  // Two attempts at the price source and the wait between them.
  handlerBudgetMs: timeouts => 2 * timeouts.upstreamTimeoutMs + UPSTREAM_RETRY_WAIT_MAX_MS,
  // Nobody pays to learn that a symbol is unknown or ambiguous, or that a mint-like string is not
  // 32 bytes. Input the schema pattern refuses was answered by validation.
  precheck: async (services, input, origin) => await checkTokenInputs(services.prices, [
    { in: origin('token'), path: 'token', value: input.token },
    { in: origin('vs'), path: 'vs', value: input.vs }
  ]),
  run: async (services, input) => {
    const document: PriceResponseBody = { data: await services.prices.getPrice(String(input.token), text(input.vs)) }
    return document
  }
}
