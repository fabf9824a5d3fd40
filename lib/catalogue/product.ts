import type { TObject, TSchema } from '@sinclair/typebox'
import type { Address } from '@solana/kit'
import type { ErrorCode } from '../../schemas/error-codes.js'
import type { TokenAnalysisBody } from '../../schemas/token-analysis.js'
import type { PriceService } from '../prices/price-service.js'

/**
 * One paid product, described once: every door (the HTTP route, the MCP tool, the A2A skill) and
 * every document (OpenAPI, the manifest, llms.txt, /.well-known/x402, the bazaar extension) and the
 * shutdown budget are derived from its entry. A product is its entry, its service and its schema.
 */

/** The merchant's services the products run on (the same instances every door calls). */
export interface ProductServices {
  prices: Pick<PriceService, 'resolveToken' | 'getPrice'>
  tokenAnalysis: { analyze: (mint: Address) => Promise<TokenAnalysisBody> }
}

/** The timeouts that bound a handler, as configured (lib/ops/shutdown-grace.ts sums them with the payment's). */
export interface HandlerTimeouts {
  /** UPSTREAM_TIMEOUT_MS: one attempt at the price source. */
  upstreamTimeoutMs: number
  /** DATA_RPC_TIMEOUT_MS (or RPC_TIMEOUT_MS): one call to the data RPC. */
  dataRpcTimeoutMs: number
}

/** The input of a call: the path parameters and the query over HTTP, the arguments over MCP and A2A, after schema validation. */
export type ProductInput = Record<string, unknown>

/** Where an input field came from, as a validation error names it: `params`, `querystring` or `arguments`. */
export type InputOrigin = (field: string) => string

export interface Product {
  /** The service name: audit rows, the manifest, the A2A skill id. */
  name: string
  method: 'GET'
  /** The route template in the router's form (`/api/<name>/:param`): the route is registered at it. */
  path: string
  /** Base units of the 6-decimal payment token. */
  price: bigint
  description: string
  /** The route's path parameters and query, and its 200 body: the MCP tool's arguments are the two merged. */
  params: TObject
  query?: TObject
  output: TSchema
  /** What a buyer sends and gets, for the discovery documents (checked against the models by the bazaar validator). */
  example: { params: Record<string, string>, query?: Record<string, string>, output: unknown }
  /** The MCP tool (its summary is read by a model: what it gets, no HTTP paths). */
  tool: { name: string, title: string, summary: string }
  /** The OpenAPI operation: its id, texts (which may name the data network) and the error codes it answers with. */
  operation: {
    id: string
    summary: (dataNetwork: string) => string
    description: (dataNetwork: string) => string
    /** The 200 answer's description. */
    delivered: string
    errors: readonly ErrorCode[]
  }
  /** The longest the handler can take under these timeouts: the shutdown grace and the lease cover it. */
  handlerBudgetMs: (timeouts: HandlerTimeouts) => number
  /** What is refused before any payment is asked (nobody pays to learn their input is wrong); may be synchronous. */
  precheck?: (services: ProductServices, input: ProductInput, origin: InputOrigin) => void | Promise<void>
  /** The document delivered once paid. */
  run: (services: ProductServices, input: ProductInput) => Promise<object>
}
