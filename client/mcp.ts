import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Type, type Static } from '@sinclair/typebox'
import type { TransactionSigner } from '@solana/kit'
import { x402Client as X402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { V1_TO_V2_NETWORK_MAP } from '@x402/svm'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import { formatTokenAmount } from '../lib/payment/catalog.js'
import { abortIsolatingFetch } from './abort-isolating-fetch.js'
import { REDELIVERED_META_KEY, X402_PAYMENT_META_KEY, X402_PAYMENT_RESPONSE_META_KEY } from '../schemas/mcp.js'
import { getManifest } from './discovery.js'
import { parseDocument, type Manifest, type ManifestService } from './documents.js'
import { withPaymentIdentifier } from './payment-identifier.js'
import { BuyerError } from './errors.js'
import { parseHttpUrl } from './http.js'

const CLIENT_INFO = { name: 'token-merchant-client', version: '1.0.0' }

/** An x402 v2 PaymentRequired as a paid tool returns it (the fields the client relies on). */
export const ToolPaymentRequiredShape = Type.Object({
  x402Version: Type.Literal(2),
  error: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
  resource: Type.Object({ url: Type.String() }),
  accepts: Type.Array(Type.Object({
    scheme: Type.String(),
    network: Type.String(),
    amount: Type.String({ pattern: '^[0-9]{1,30}$' }),
    asset: Type.String(),
    payTo: Type.String(),
    maxTimeoutSeconds: Type.Integer(),
    extra: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
  }), { minItems: 1 })
})

/** The SettlementResponse in a paid result's `_meta["x402/payment-response"]`. */
export const SettlementShape = Type.Object({
  success: Type.Boolean(),
  transaction: Type.String(),
  network: Type.String(),
  payer: Type.Optional(Type.String())
})

export type McpSettlement = Static<typeof SettlementShape>

/** Progress of one MCP purchase, in order. */
export type McpBuyStep =
  | { type: 'mcp-call', tool: string, arguments: Record<string, unknown>, paid: boolean }
  | { type: 'payment-required', tool: string, amount: bigint, amountDisplay: string, payTo: string, asset: string, network: string }
  | { type: 'requirements-accepted', service: string, amount: bigint, maxPrice: bigint | undefined }
  | { type: 'payment-signed', payer: string }
  | { type: 'payment-retry', attempt: number, reason: string, delayMs: number }
  | { type: 'delivered', receipt: McpSettlement, redelivered: boolean }

export interface McpBuyOptions {
  /** The buyer's wallet: signs the token transfer; the merchant pays the fee and sends it. */
  signer: TransactionSigner
  /** RPC URL on the merchant's cluster (the x402 client reads the mint and a blockhash there). */
  rpcUrl: string
  /** Spending guard in base units: a higher price is refused before anything is signed. */
  maxPrice?: bigint
  /** The merchant's manifest to check the requirements against; fetched when absent. */
  manifest?: Manifest
  onStep?: (step: McpBuyStep) => void
  /** Calls repeated with the same payment when the merchant says it is busy or pending (default 3). */
  retries?: number
  retryDelayMs?: number
}

export interface McpBuyResult<T = unknown> {
  tool: string
  arguments: Record<string, unknown>
  /** The tool's document: what the HTTP route answers. */
  data: T
  /** The settlement; null when the tool asked for nothing. */
  receipt: McpSettlement | null
  /** The payment's transaction signature; null when nothing was paid. */
  signature: string | null
  amountPaid: bigint
}

/** The merchant's MCP endpoint, connected with the SDK's client over streamable HTTP. */
export async function connectMerchantMcp (mcpUrl: string): Promise<Client> {
  const client = new Client(CLIENT_INFO)
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(parseHttpUrl(mcpUrl).href), { fetch: abortIsolatingFetch() }))
  } catch (error) {
    throw new BuyerError('HTTP_UNREACHABLE', `cannot open an MCP session with ${mcpUrl}: ${(error as Error).message}`, {}, { cause: error })
  }
  return client
}

/** A tool result's JSON document: structuredContent, or the JSON text of its first content item. */
export function structured (result: CallToolResult): Record<string, unknown> | undefined {
  if (result.structuredContent !== undefined) return result.structuredContent
  const first = result.content[0]
  if (first?.type !== 'text') return undefined
  try {
    return JSON.parse(first.text) as Record<string, unknown>
  } catch {
    return undefined
  }
}

export function isPaymentRequired (document: Record<string, unknown> | undefined): boolean {
  return document !== undefined && 'x402Version' in document && 'accepts' in document
}

/** Why a paid call was not delivered, as its fields say it. */
export interface ToolRefusal {
  /** The stable code: the PaymentRequired's `code` (why payment is asked again), or the error body's. */
  code?: string
  /** How long to wait before sending the same payment again, when the merchant says. */
  retryAfterSeconds?: number
  /** The PaymentRequired's `error`, the reason in words for people; undefined for an error body. */
  reason?: string
}

/** Reads a failed paid call's document (a PaymentRequired asking again, or the common error body) by its fields. */
export function toolRefusal (document: Record<string, unknown> | undefined): ToolRefusal {
  const code = typeof document?.code === 'string' ? document.code : undefined
  const seconds = document?.retryAfterSeconds
  const retryAfterSeconds = typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined
  const reason = isPaymentRequired(document) && typeof document?.error === 'string' ? document.error : undefined
  return { code, retryAfterSeconds, reason }
}

const MAX_RETRY_DELAY_MS = 8000

/** The wait before the same payment goes again: the backoff, or longer when the merchant asks (capped). */
export function retryDelayMs (backoffMs: number, refused: ToolRefusal): number {
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(backoffMs, (refused.retryAfterSeconds ?? 0) * 1000))
}

/** A tool's error result as a BuyerError: nothing was charged (x402 settles only a delivered result). */
function toolFailure (tool: string, document: Record<string, unknown> | undefined): BuyerError {
  const code = typeof document?.code === 'string' ? document.code : undefined
  const message = typeof document?.message === 'string' ? document.message : 'the tool failed'
  return new BuyerError('REQUEST_FAILED', `${tool} failed${code === undefined ? '' : ` ${code}`}: ${message}; nothing was charged`,
    { status: typeof document?.statusCode === 'number' ? document.statusCode : undefined, serverCode: code })
}

/** A free tool's document (get_manifest, get_reputation, list_registry). */
export async function callFreeTool<T = unknown> (client: Client, tool: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name: tool, arguments: args }) as CallToolResult
  const document = structured(result)
  if (result.isError === true || document === undefined) throw toolFailure(tool, document)
  return document as T
}

function templateArguments (template: string, path: string): Record<string, string> | undefined {
  const want = template.split('/')
  const got = path.split('/')
  if (want.length !== got.length) return undefined
  const args: Record<string, string> = {}
  for (const [i, segment] of want.entries()) {
    if (segment.startsWith(':')) {
      if (got[i] === '') return undefined
      args[segment.slice(1)] = decodeURIComponent(got[i])
    } else if (segment !== got[i]) return undefined
  }
  return args
}

/**
 * The tool and arguments that buy what a paid HTTP URL sells, from the manifest: the service whose
 * endpoint template matches the path names its tool (`mcp_tool`); path parameters and the query
 * string become the arguments (`/api/fetch-price/SOL?vs=JUP` → fetch_price { token: SOL, vs: JUP }).
 */
export function toolCallFor (url: string, manifest: Manifest): { service: ManifestService, tool: string, arguments: Record<string, string> } {
  const parsed = new URL(url)
  const path = parsed.pathname.replace(/\/+$/, '')
  for (const service of manifest.services) {
    const args = templateArguments(service.endpoint, path)
    const tool = service.mcp_tool
    if (args === undefined) continue
    if (tool === undefined) throw new BuyerError('INVALID_INPUT', `the merchant sells ${service.name} through no MCP tool`)
    for (const [key, value] of parsed.searchParams) args[key] = value
    return { service, tool, arguments: args }
  }
  throw new BuyerError('INVALID_INPUT', `the manifest lists no paid service for ${parsed.pathname}`)
}

/**
 * The requirement the client pays (the first exact one on Solana), compared with the manifest's
 * terms (recipient, mint, network, this service's price), then with the spending limit.
 */
export function checkToolRequirement (required: PaymentRequired, manifest: Manifest, service: ManifestService, maxPrice: bigint | undefined) {
  const requirement = required.accepts.find(r => r.scheme === 'exact' && r.network.startsWith('solana:'))
  if (requirement === undefined) {
    throw new BuyerError('REQUIREMENTS_MISMATCH', `${service.name} accepts no "exact" payment on Solana`, { problems: required.accepts.map(r => `${r.scheme} on ${r.network}`) })
  }
  const price = BigInt(requirement.amount)
  const problems: string[] = []
  if (BigInt(service.price) !== price) problems.push(`price ${price} differs from the manifest's ${service.price} for ${service.name}`)
  if (requirement.payTo !== manifest.payment_address) problems.push(`recipient ${requirement.payTo} differs from the manifest's payment_address ${manifest.payment_address}`)
  if (requirement.asset !== manifest.payment_mint) problems.push(`mint ${requirement.asset} differs from the manifest's payment_mint ${manifest.payment_mint}`)
  const expectedNetwork = V1_TO_V2_NETWORK_MAP[service.payment_network]
  if (expectedNetwork !== undefined && requirement.network !== expectedNetwork) problems.push(`network ${requirement.network} differs from the manifest's ${service.payment_network} (${expectedNetwork})`)
  if (problems.length > 0) {
    throw new BuyerError('REQUIREMENTS_MISMATCH', `the payment requested by ${service.name} does not match the merchant's manifest: ${problems.join('; ')}`, { problems })
  }
  if (maxPrice !== undefined && price > maxPrice) {
    throw new BuyerError('SPENDING_LIMIT', `${service.name} costs ${formatTokenAmount(price, manifest.payment_decimals)} (${price} base units), above the limit of ${maxPrice} base units; nothing was paid`,
      { price: price.toString(), maxPrice: maxPrice.toString() })
  }
  return { requirement, price }
}

/**
 * The PaymentPayload for one checked requirement, built by the official x402 client (`exact` on
 * Solana: a transfer the buyer signs, the merchant sends as fee payer), named with a fresh
 * payment-identifier; the client's own spend control caps it at the requirement's amount.
 */
export async function buildToolPayment (required: PaymentRequired, requirement: PaymentRequirements, signer: TransactionSigner, rpcUrl: string): Promise<PaymentPayload> {
  const network = requirement.network as `${string}:${string}`
  const payer = withPaymentIdentifier(new X402Client())
    .register(network, new ExactSvmScheme(signer, { rpcUrl }))
    .setSpendControls({ maxAmountPerPayment: false, allowedAssets: [{ network, asset: requirement.asset, maxAmountPerPayment: requirement.amount }] })
  try {
    return await payer.createPaymentPayload({ ...required, accepts: [requirement] })
  } catch (error) {
    throw new BuyerError('PAYMENT_SEND_FAILED', `the x402 client could not build the payment: ${(error as Error).message}; nothing was paid`, {}, { cause: error })
  }
}

/** Refusals after which the same payment is worth sending again: nothing moved, the merchant is busy. */
export const RETRYABLE = new Set(['PAYMENT_IN_PROGRESS', 'RPC_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'X402_SETTLEMENT_PENDING'])

const sleep = async (ms: number) => await new Promise(resolve => setTimeout(resolve, ms))

/**
 * One purchase through the merchant's MCP tools, paid with x402's MCP transport: call the tool,
 * read the PaymentRequired it returns, check it against the manifest and the spending limit, build
 * the PaymentPayload with the official x402 client (a transfer the buyer signs and the merchant
 * sends as fee payer), call again with it in `_meta["x402/payment"]`. Money moves only when the
 * merchant settles a delivered result; any refusal leaves the buyer's tokens where they were.
 */
export async function buyViaMcp<T = unknown> (client: Client, url: string, options: McpBuyOptions): Promise<McpBuyResult<T>> {
  const target = parseHttpUrl(url).href
  const { onStep } = options
  if (options.maxPrice !== undefined && options.maxPrice < 0n) throw new BuyerError('INVALID_INPUT', 'maxPrice must not be negative')
  const manifest = options.manifest ?? await getManifest(new URL(target).origin)
  const call = toolCallFor(target, manifest)

  onStep?.({ type: 'mcp-call', tool: call.tool, arguments: call.arguments, paid: false })
  const first = await client.callTool({ name: call.tool, arguments: call.arguments }) as CallToolResult
  const challenge = structured(first)
  if (first.isError !== true && challenge !== undefined) {
    return { tool: call.tool, arguments: call.arguments, data: challenge as T, receipt: null, signature: null, amountPaid: 0n }
  }
  if (!isPaymentRequired(challenge)) throw toolFailure(call.tool, challenge)
  const required = parseDocument(ToolPaymentRequiredShape, challenge, `the PaymentRequired of ${call.tool}`) as PaymentRequired

  const { requirement, price } = checkToolRequirement(required, manifest, call.service, options.maxPrice)
  onStep?.({
    type: 'payment-required',
    tool: call.tool,
    amount: price,
    amountDisplay: formatTokenAmount(price, manifest.payment_decimals),
    payTo: requirement.payTo,
    asset: requirement.asset,
    network: requirement.network
  })
  onStep?.({ type: 'requirements-accepted', service: call.service.name, amount: price, maxPrice: options.maxPrice })

  const payload = await buildToolPayment(required, requirement, options.signer, options.rpcUrl)
  onStep?.({ type: 'payment-signed', payer: options.signer.address })

  const retries = options.retries ?? 3
  for (let attempt = 0; ; attempt++) {
    onStep?.({ type: 'mcp-call', tool: call.tool, arguments: call.arguments, paid: true })
    let paid: CallToolResult
    try {
      paid = await client.callTool({ name: call.tool, arguments: call.arguments, _meta: { [X402_PAYMENT_META_KEY]: payload } }) as CallToolResult
    } catch (error) {
      // No answer (a timeout, a dropped connection): the money may have moved, so the same payload
      // is sent again; the merchant re-delivers a result it settled, and never charges twice.
      if (attempt >= retries) throw new BuyerError('DELIVERY_FAILED', `${call.tool} did not answer after the payment was sent (${(error as Error).message}); retry with the same payment`, {}, { cause: error })
      const delayMs = (options.retryDelayMs ?? 500) * 2 ** attempt
      onStep?.({ type: 'payment-retry', attempt: attempt + 1, reason: 'no answer', delayMs })
      await sleep(delayMs)
      continue
    }
    const document = structured(paid)
    if (paid.isError !== true && document !== undefined) {
      const receipt = parseDocument(SettlementShape, paid._meta?.[X402_PAYMENT_RESPONSE_META_KEY], `the settlement of ${call.tool}`)
      onStep?.({ type: 'delivered', receipt, redelivered: paid._meta?.[REDELIVERED_META_KEY] === true })
      return { tool: call.tool, arguments: call.arguments, data: document as T, receipt, signature: receipt.transaction, amountPaid: price }
    }
    const refused = toolRefusal(document)
    const { code } = refused
    if (attempt >= retries || code === undefined || !RETRYABLE.has(code)) {
      if (!isPaymentRequired(document)) throw toolFailure(call.tool, document)
      throw new BuyerError('REQUEST_FAILED', `${call.tool} refused the payment: ${refused.reason ?? 'no reason given'}; nothing was charged`, { serverCode: code })
    }
    const delayMs = retryDelayMs((options.retryDelayMs ?? 500) * 2 ** attempt, refused)
    onStep?.({ type: 'payment-retry', attempt: attempt + 1, reason: refused.reason ?? code, delayMs })
    await sleep(delayMs)
  }
}
