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
import { X402_PAYMENT_META_KEY } from './x402-meta.js'

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

/** The merchant's MCP tools: the HTTP products and the free documents, one entry each. */
export const MCP_TOOLS = {
  fetch_price: {
    title: 'Token price',
    summary: 'Price of a Solana token (symbol or mint) in USDC or another quote token, from Jupiter price v3 (the document of GET /api/fetch-price/:token).',
    input: closed({ token: TokenToPrice, vs: Type.Optional(QuoteToken) }),
    output: PriceResponse,
    service: 'fetch-price'
  },
  analyze_token: {
    title: 'Token security analysis',
    summary: 'Security analysis of a token mint: authorities, Token-2022 extensions, holders, metadata, market data, sell quotes, a simulated transfer, the list of checks and a 1-100 risk score (the document of GET /api/analyze-token/:address).',
    input: closed({ address: MintToAnalyze }),
    output: TokenAnalysis,
    service: 'analyze-token'
  },
  get_manifest: {
    title: 'Merchant manifest',
    summary: 'The merchant manifest (/.well-known/agent.json): what it sells, at what price, paid to whom, and where.',
    input: closed({}),
    output: Manifest
  },
  get_reputation: {
    title: 'Merchant reputation',
    summary: 'Trust signals from the audit log (GET /reputation): success rate, transactions, failures by code, payers, revenue, latency per service.',
    input: closed(ReputationQuery.properties),
    output: Reputation
  },
  list_registry: {
    title: 'Agent registry',
    summary: 'Agents registered on the chain through the registry address, newest first (GET /registry).',
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

/** The tool description: what it does and what it costs, from the one price table. */
function describe (entry: ToolEntry, tokenSymbol: string): string {
  if (entry.service === undefined) return `${entry.summary} Free.`
  const price = PAID_SERVICES[entry.service].price
  return `${entry.summary} Costs ${formatTokenAmount(price)} ${tokenSymbol} (${price} base units) per call, paid through x402 ` +
    '(exact scheme, Solana): called without payment it returns isError with the x402 PaymentRequired; call again with the ' +
    `PaymentPayload in params._meta["${X402_PAYMENT_META_KEY}"]. Nothing is charged when the tool fails.`
}

/**
 * The output schema as MCP clients check it: the route's document or, on `isError`, the common
 * error shape (and for paid tools the x402 PaymentRequired). The SDK client validates
 * `structuredContent` against it even on errors, so the error branches are part of the contract.
 */
function outputSchema (entry: ToolEntry, models: readonly TSchema[]) {
  const branches = [entry.output, ...(entry.service === undefined ? [] : [ToolPaymentRequired]), ErrorResponse]
  return {
    type: 'object' as const,
    description: `${entry.output.description ?? 'the document'}; with isError: the error${entry.service === undefined ? '' : ' or the x402 PaymentRequired'}`,
    anyOf: branches.map(branch => selfContainedSchema(branch, models))
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

/** The answer to tools/list, built once per process. */
export function listTools (tokenSymbol: string, models: readonly TSchema[]): ToolListing[] {
  return (Object.keys(MCP_TOOLS) as McpToolName[]).map(name => {
    const entry: ToolEntry = MCP_TOOLS[name]
    return {
      name,
      title: entry.title,
      description: describe(entry, tokenSymbol),
      inputSchema: selfContainedSchema(entry.input, models) as ToolListing['inputSchema'],
      outputSchema: outputSchema(entry, models),
      annotations: { readOnlyHint: true, openWorldHint: entry.service !== undefined }
    }
  })
}
