import { Type, type TSchema } from '@sinclair/typebox'
import { toolInput, type Catalogue } from '../catalogue/catalogue.js'
import { formatTokenAmount } from '../payment/catalog.js'
import { ErrorResponse } from '../../schemas/error.js'
import { Manifest } from '../../schemas/manifest.js'
import { ToolPaymentRequired } from '../../schemas/mcp.js'
import { RegistryListing, RegistryQuery } from '../../schemas/registry.js'
import { Reputation, ReputationQuery } from '../../schemas/reputation.js'
import { selfContainedSchema } from '../../schemas/self-contained.js'

interface ToolEntry {
  title: string
  /** What the tool does; the price sentence is added from the catalogue. */
  summary: string
  /** Arguments: built from the same TypeBox schemas as the HTTP route's parameters. */
  input: TSchema
  /** The document it returns: the same model as the HTTP route's 200 body. */
  output: TSchema
  /** Paid tools name their product in the catalogue, and its price. */
  service?: string
  price?: bigint
}

const closed = (properties: Record<string, TSchema>) => Type.Object(properties, { additionalProperties: false })

/** The free documents as tools. Summaries are read by a model: what it gets, no HTTP paths. */
const FREE_TOOLS = {
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

/** A tool's name: a product's (from the catalogue) or a free document's. */
export type McpToolName = string

const catalogueTools = new WeakMap<Catalogue, Readonly<Record<McpToolName, ToolEntry>>>()

/** The merchant's MCP tools: the catalogue's products, then the free documents, one entry each. */
export function toolsOf (catalogue: Catalogue): Readonly<Record<McpToolName, ToolEntry>> {
  let tools = catalogueTools.get(catalogue)
  if (tools === undefined) {
    const taken = catalogue.products.find(product => Object.hasOwn(FREE_TOOLS, product.tool.name))
    if (taken !== undefined) throw new Error(`product "${taken.name}": the MCP tool name "${taken.tool.name}" is a free tool's`)
    const paid = catalogue.products.map(product => [product.tool.name, {
      title: product.tool.title,
      summary: product.tool.summary,
      input: toolInput(product),
      output: product.output,
      service: product.name,
      price: product.price
    } satisfies ToolEntry] as const)
    tools = Object.freeze({ ...Object.fromEntries(paid), ...FREE_TOOLS })
    catalogueTools.set(catalogue, tools)
  }
  return tools
}

/** The tool description: what it returns and what it costs, from the catalogue. */
function describe (entry: ToolEntry, tokenSymbol: string): string {
  if (entry.price === undefined) return `${entry.summary} Free.`
  const price = entry.price
  return `${entry.summary} Costs ${formatTokenAmount(price)} ${tokenSymbol} (${price} base units) per call, paid through x402 ` +
    '(exact, Solana): an unpaid call returns the x402 PaymentRequired, which an x402 MCP client pays. Nothing is charged when the tool fails.'
}

const sentence = (text: string) => text.trim().replace(/\.?$/, '.')

/** The first sentence of a description: the rest is in the OpenAPI document. */
const firstSentence = (text: string) => text.split(/(?<=\.)\s/)[0]

/**
 * A model's top level only: its type, required keys and, with `withProperties`, each property's type and
 * the first sentence of its description. Only keywords are dropped, so whatever the full model accepts
 * this accepts too; the rest is referenced in the OpenAPI document (the full schemas made tools/list
 * ~40 KB of a model's context).
 */
function outline (model: TSchema, models: readonly TSchema[], openApiUrl: string, withProperties: boolean): Record<string, unknown> {
  const full = selfContainedSchema(model, models)
  const brief = ({ type, description }: Record<string, unknown>) => ({
    ...(type === undefined ? {} : { type }),
    ...(typeof description === 'string' ? { description: firstSentence(description) } : {})
  })
  const properties = full.properties as Record<string, Record<string, unknown>> | undefined
  return {
    ...(full.type === undefined ? {} : { type: full.type }),
    ...(withProperties && typeof model.$id === 'string' ? { description: `Full schema: ${openApiUrl}#/components/schemas/${model.$id}` } : {}),
    ...(full.required === undefined ? {} : { required: full.required }),
    ...(properties === undefined || !withProperties ? {} : { properties: Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, brief(value)])) })
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
    // The error branches are the same in every tool: their required keys only (their full schemas are
    // in the same OpenAPI document as the output's).
    anyOf: branches.map(branch => outline(branch, models, openApiUrl, branch === entry.output))
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
export function listTools (tokenSymbol: string, models: readonly TSchema[], openApiUrl: string, catalogue: Catalogue): ToolListing[] {
  const tools = toolsOf(catalogue)
  return Object.keys(tools).map(name => {
    const entry = tools[name]
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

/** "a, b and c": names in a sentence. */
export function proseList (names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
}

/** The sentence of the MCP server's instructions that says which tools are paid and which are free. */
export function toolPricing (catalogue: Catalogue): string {
  return `${proseList(catalogue.products.map(product => product.tool.name))} are paid per call through x402 ` +
    `(tool-result binding); ${proseList(Object.keys(FREE_TOOLS))} are free.`
}
