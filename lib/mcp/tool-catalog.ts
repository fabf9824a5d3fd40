import { Type, type TSchema } from '@sinclair/typebox'
import { formatTokenAmount, PAID_SERVICES, type PaidServiceName } from '../payment/catalog.js'
import { ErrorResponse } from '../../schemas/error.js'
import { Manifest } from '../../schemas/manifest.js'
import { ToolPaymentRequired } from '../../schemas/mcp.js'
import { PriceResponse, QuoteToken, TokenToPrice } from '../../schemas/price.js'
import { RegistryListing, RegistryQuery } from '../../schemas/registry.js'
import { Reputation, ReputationQuery } from '../../schemas/reputation.js'
import { MintToAnalyze, TokenAnalysis } from '../../schemas/token-analysis.js'
import { selfContainedSchema } from './json-schema.js'

interface ToolEntry {
  title: string
  /** What the tool does; the price sentence is added from the price table. */
  summary: string
  /** Arguments: built from the same TypeBox schemas as the HTTP route's parameters. */
  input: TSchema
  /** The document it returns: the same model as the HTTP route's 200 body. */
  output: TSchema
  /** Paid tools name their entry in the price table. */
  service?: PaidServiceName
}

const closed = (properties: Record<string, TSchema>) => Type.Object(properties, { additionalProperties: false })

/** The merchant's MCP tools: the HTTP products and the free documents, one entry each. Summaries are read by a model: what it gets, no HTTP paths. */
export const MCP_TOOLS = {
  fetch_price: {
    title: 'Token price',
    summary: 'Current price of a Solana token (symbol such as SOL, or mint address) in USDC or in another quote token given as vs, from Jupiter: price, USD price, both tokens and the time it was fetched.',
    input: closed({ token: TokenToPrice, vs: Type.Optional(QuoteToken) }),
    output: PriceResponse,
    service: 'fetch-price'
  },
  analyze_token: {
    title: 'Token security analysis',
    summary: 'Security analysis of a Solana token mint: authorities, Token-2022 extensions, holders, metadata, market data and sell quotes from Jupiter, a simulated transfer, the list of checks, and a 1-100 risk score with the findings behind it.',
    input: closed({ address: MintToAnalyze }),
    output: TokenAnalysis,
    service: 'analyze-token'
  },
  get_manifest: {
    title: 'Merchant manifest',
    summary: 'What this merchant sells, at what price, paid to which address on which network, and where to call it.',
    input: closed({}),
    output: Manifest
  },
  get_reputation: {
    title: 'Merchant reputation',
    summary: 'Trust signals from the merchant\'s own audit log over a window: success rate, transactions, failures by code, payers, revenue and latency per service.',
    input: closed(ReputationQuery.properties),
    output: Reputation
  },
  list_registry: {
    title: 'Agent registry',
    summary: 'Agents registered on-chain in the merchant\'s registry, newest first, with their manifest URLs; filter by wallet or name.',
    input: closed(RegistryQuery.properties),
    output: RegistryListing
  }
} as const satisfies Record<string, ToolEntry>

export type McpToolName = keyof typeof MCP_TOOLS

export function isMcpToolName (name: string): name is McpToolName {
  return Object.hasOwn(MCP_TOOLS, name)
}

/** The tool that sells a paid service. */
export function toolOfService (service: PaidServiceName): McpToolName {
  const found = (Object.keys(MCP_TOOLS) as McpToolName[]).find(name => (MCP_TOOLS[name] as ToolEntry).service === service)
  if (found === undefined) throw new Error(`no MCP tool sells "${service}"`)
  return found
}

export function paidServiceOf (name: McpToolName): PaidServiceName | undefined {
  return (MCP_TOOLS[name] as ToolEntry).service
}

/** The tool description: what it returns and what it costs, from the one price table. */
function describe (entry: ToolEntry, tokenSymbol: string): string {
  if (entry.service === undefined) return `${entry.summary} Free.`
  const price = PAID_SERVICES[entry.service].price
  return `${entry.summary} Costs ${formatTokenAmount(price)} ${tokenSymbol} (${price} base units) per call, paid through x402 ` +
    '(exact, Solana): an unpaid call returns the x402 PaymentRequired, which an x402 MCP client pays. Nothing is charged when the tool fails.'
}

const sentence = (text: string) => text.trim().replace(/\.?$/, '.')

/**
 * A model's top level only: its type, required keys and the `propertyKeys` of each property. Only
 * keywords are dropped, so whatever the full model accepts this accepts too; the rest is referenced
 * in the OpenAPI document (the full schemas made tools/list ~40 KB of a model's context).
 */
function outline (model: TSchema, models: readonly TSchema[], openApiUrl: string, propertyKeys: readonly string[]): Record<string, unknown> {
  const full = selfContainedSchema(model, models)
  const brief = (node: Record<string, unknown>) => Object.fromEntries(propertyKeys.filter(key => node[key] !== undefined).map(key => [key, node[key]]))
  const properties = full.properties as Record<string, Record<string, unknown>> | undefined
  return {
    ...(full.type === undefined ? {} : { type: full.type }),
    ...(typeof model.$id === 'string' ? { description: `Full schema: ${openApiUrl}#/components/schemas/${model.$id}` } : {}),
    ...(full.required === undefined ? {} : { required: full.required }),
    ...(properties === undefined || propertyKeys.length === 0 ? {} : { properties: Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, brief(value)])) })
  }
}

/**
 * The output schema as MCP clients check it: the route's document or, on `isError`, the common
 * error shape (and for paid tools the x402 PaymentRequired). The SDK client validates
 * `structuredContent` against it even on errors, so the error branches are part of the contract.
 */
function outputSchema (entry: ToolEntry, models: readonly TSchema[], openApiUrl: string) {
  const branches = [entry.output, ...(entry.service === undefined ? [] : [ToolPaymentRequired]), ErrorResponse]
  const otherwise = entry.service === undefined ? 'the error body' : 'the error body or the x402 PaymentRequired'
  return {
    type: 'object' as const,
    description: `${sentence(entry.output.description ?? 'The document')} With isError: ${otherwise}.`,
    // The error branches are the same in every tool: their required keys only.
    anyOf: branches.map(branch => outline(branch, models, openApiUrl, branch === entry.output ? ['type', 'description'] : []))
  }
}

export interface ToolListing {
  name: McpToolName
  title: string
  description: string
  inputSchema: { type: 'object', [key: string]: unknown }
  outputSchema: { type: 'object', [key: string]: unknown }
  annotations: { readOnlyHint: true, openWorldHint: boolean }
}

/** The answer to tools/list; output schemas point to the OpenAPI document at `openApiUrl` for what they leave out. */
export function listTools (tokenSymbol: string, models: readonly TSchema[], openApiUrl: string): ToolListing[] {
  return (Object.keys(MCP_TOOLS) as McpToolName[]).map(name => {
    const entry: ToolEntry = MCP_TOOLS[name]
    return {
      name,
      title: entry.title,
      description: describe(entry, tokenSymbol),
      inputSchema: selfContainedSchema(entry.input, models) as ToolListing['inputSchema'],
      outputSchema: outputSchema(entry, models, openApiUrl),
      annotations: { readOnlyHint: true, openWorldHint: entry.service !== undefined }
    }
  })
}
