import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { TransactionSigner } from '@solana/kit'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { JsonRpcError } from '../../lib/http/json-rpc.js'
import { REDELIVERED_META_KEY, X402_PAYMENT_META_KEY, X402_PAYMENT_RESPONSE_META_KEY } from '../../schemas/mcp.js'
import { SERVICE_VERSION } from '../../project.js'
import { parseDocument, type Manifest } from '../documents.js'
import { isBuyerError } from '../errors.js'
import { buildToolPayment, checkToolRequirement, isPaymentRequired, RETRYABLE, retryDelayMs, SettlementShape, structured, ToolPaymentRequiredShape, toolRefusal } from '../mcp.js'
import type { BridgeOptions } from './options.js'
import { amountText, publicCluster, receiptLine, rpcServesPublicCluster } from './receipt.js'
import { BudgetExceeded, type SpendLedger } from './spend-ledger.js'

export interface BridgeDeps {
  /** The merchant's MCP endpoint, connected. */
  upstream: Client
  /** The merchant's manifest when the bridge was pointed at it: prices in tools/list, terms checked before paying. */
  manifest?: Manifest
  /** Absent for a dry run without a keypair: nothing is ever signed then. */
  signer?: TransactionSigner
  ledger: SpendLedger
  options: Pick<BridgeOptions, 'maxPrice' | 'budget' | 'dryRun' | 'rpc'>
  /** One line to stderr: stdout is the protocol. */
  log: (line: string) => void
  /** Paid calls sent again with the same payment when no answer came or the merchant was busy (default 3). */
  retries?: number
  retryDelayMs?: number
}

const sleep = async (ms: number) => await new Promise(resolve => setTimeout(resolve, ms))

/** A tool error for the model: one sentence saying what happened and whether anything was paid. */
const toolError = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true })

/** An upstream protocol error passed on as it came (the SDK's McpError prefixes "MCP error <code>: " to its message). */
function passOn (error: unknown): never {
  if (error instanceof McpError) throw new JsonRpcError(error.code, error.message.replace(/^MCP error -?\d+: /, ''), error.data)
  throw error
}

/**
 * A paying MCP bridge: an MCP server for a host (stdio) in front of a merchant's MCP endpoint.
 * Tools are listed as the merchant lists them, with their price and the buyer's limits added to
 * the description; a call the merchant answers with an x402 PaymentRequired is paid (`exact` on
 * Solana, through the official x402 client) within the per-call and daily limits, and sent again
 * with the payment. Money moves only when the merchant settles a delivered result, so a refusal
 * costs nothing and gives its hold on the budget back.
 */
export function createBridgeServer (deps: BridgeDeps): Server {
  const { upstream, manifest, ledger, options, log } = deps
  const token = manifest === undefined ? undefined : { symbol: manifest.services[0]?.payment_token ?? 'tokens', decimals: manifest.payment_decimals }
  const money = (amount: bigint) => amountText(amount, token)
  // Asked once per RPC and network: whether receipts may link to the public explorer.
  const publicChains = new Map<string, Promise<boolean>>()
  const servesPublicCluster = async (rpcUrl: string, network: string) => {
    const key = `${rpcUrl} ${network}`
    if (!publicChains.has(key)) publicChains.set(key, rpcServesPublicCluster(rpcUrl, network))
    return await (publicChains.get(key) as Promise<boolean>)
  }
  const upstreamInstructions = upstream.getInstructions()
  const server = new Server(
    { name: 'token-merchant-mcp-bridge', version: SERVICE_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: `${upstreamInstructions === undefined ? '' : `${upstreamInstructions}\n`}Paid tools are paid by this bridge, automatically, within the buyer's limits; a call beyond them returns an error and pays nothing.`
    }
  )

  function limitsText (): string {
    if (options.dryRun) return 'Dry run: calls are priced, never paid.'
    const limits = [
      options.maxPrice === undefined ? undefined : `at most ${money(options.maxPrice)} per call`,
      options.budget === undefined ? undefined : `${money(options.budget)} per day`
    ].filter(Boolean)
    return `Paid automatically${limits.length === 0 ? '' : ` up to your limits (${limits.join(', ')})`}.`
  }

  function describe (tool: Tool): Tool {
    const service = manifest?.services.find(s => s.mcp_tool === tool.name)
    // A priced tool is described by its product and the bridge's own terms: the merchant's text says
    // the price again and how an x402 client pays, which the bridge does for its host.
    if (service !== undefined) return { ...tool, description: `${service.description} Price: ${money(BigInt(service.price))} per call. ${limitsText()}` }
    const paid = /x402/i.test(tool.description ?? '')
    return { ...tool, description: `${tool.description ?? tool.name}${paid ? ` ${limitsText()}` : ''}` }
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools: Tool[] = []
    let cursor: string | undefined
    do {
      const page = await upstream.listTools(cursor === undefined ? {} : { cursor }).catch(passOn)
      tools.push(...page.tools.map(describe))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return { tools }
  })

  /** The requirement this bridge can pay and its price, checked against the manifest when there is one; a string says why not. */
  function chooseRequirement (name: string, required: PaymentRequired): { requirement: PaymentRequirements, price: bigint } | string {
    const service = manifest?.services.find(s => s.mcp_tool === name)
    if (manifest !== undefined && service !== undefined) {
      try {
        return checkToolRequirement(required, manifest, service, undefined)
      } catch (error) {
        return `${(error as Error).message}; nothing was paid`
      }
    }
    const requirement = required.accepts.find(r => r.scheme === 'exact' && r.network.startsWith('solana:'))
    if (requirement === undefined) return `${name} asks for a payment this bridge cannot make (${required.accepts.map(r => `${r.scheme} on ${r.network}`).join(', ')}): it pays x402 "exact" on Solana only; nothing was paid`
    return { requirement, price: BigInt(requirement.amount) }
  }

  async function callTool (name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    let first: CallToolResult
    try {
      first = await upstream.callTool({ name, arguments: args }) as CallToolResult
    } catch (error) {
      if (error instanceof McpError) passOn(error)
      return toolError(`MERCHANT_UNREACHABLE: ${name} got no answer from the merchant (${(error as Error).message}); nothing was paid.`)
    }
    const challenge = structured(first)
    if (first.isError !== true || !isPaymentRequired(challenge)) return first
    const required = parseDocument(ToolPaymentRequiredShape, challenge, `the PaymentRequired of ${name}`) as PaymentRequired
    const chosen = chooseRequirement(name, required)
    if (typeof chosen === 'string') return toolError(`REQUIREMENTS_MISMATCH: ${chosen}.`)
    const { requirement, price } = chosen
    const spent = ledger.spentToday()
    log(`${name}: asks ${money(price)} to ${requirement.payTo} on ${requirement.network}`)

    if (options.maxPrice !== undefined && price > options.maxPrice) {
      return toolError(`SPENDING_LIMIT: ${name} costs ${money(price)}, above the per-call limit of ${money(options.maxPrice)} (--max-price); nothing was paid.`)
    }
    const overBudget = options.budget !== undefined && spent + price > options.budget
    if (options.dryRun) {
      return toolError(`DRY_RUN: ${name} would cost ${money(price)}, paid to ${requirement.payTo} on ${requirement.network}; ` +
        `${overBudget ? 'that would pass today\'s budget' : 'within your limits'} (spent today: ${money(spent)}${options.budget === undefined ? '' : ` of ${money(options.budget)}`}). ` +
        'Nothing was paid: the bridge runs with --dry-run.')
    }
    const signer = deps.signer
    if (signer === undefined) return toolError(`NO_WALLET: ${name} costs ${money(price)}; the bridge has no keypair to pay with (--keypair); nothing was paid.`)
    let day: string
    try {
      day = ledger.hold(price)
    } catch (error) {
      if (!(error instanceof BudgetExceeded)) throw error
      return toolError(`DAILY_BUDGET: ${name} costs ${money(price)}; with ${money(error.spentToday)} spent today (UTC) that passes the daily budget of ${money(error.budget)} (--budget); nothing was paid.`)
    }

    const rpcUrl = options.rpc ?? publicCluster(requirement.network)?.rpcUrl
    if (rpcUrl === undefined) {
      ledger.release(day, price)
      return toolError(`${requirement.network} is not a public cluster: start the bridge with --rpc <url> to pay there; nothing was paid.`)
    }
    let payload
    try {
      payload = await buildToolPayment(required, requirement, signer, rpcUrl)
    } catch (error) {
      ledger.release(day, price)
      if (isBuyerError(error)) return toolError(`PAYMENT_FAILED: ${error.message}.`)
      throw error
    }

    const retries = deps.retries ?? 3
    for (let attempt = 0; ; attempt++) {
      const delayMs = (deps.retryDelayMs ?? 500) * 2 ** attempt
      let paid: CallToolResult
      try {
        paid = await upstream.callTool({ name, arguments: args, _meta: { [X402_PAYMENT_META_KEY]: payload } }) as CallToolResult
      } catch (error) {
        // No answer: the money may have moved, so the hold stays and the same payment goes again
        // (the merchant re-delivers what it settled, and never charges twice).
        if (attempt >= retries) {
          return toolError(`DELIVERY_FAILED: ${name} did not answer after the payment was sent (${(error as Error).message}); ` +
            `${money(price)} stays counted against today's budget in case it was settled.`)
        }
        log(`${name}: no answer (${(error as Error).message}); sending the same payment again in ${delayMs} ms`)
        await sleep(delayMs)
        continue
      }
      const document = structured(paid)
      if (paid.isError !== true) {
        const receipt = parseDocument(SettlementShape, paid._meta?.[X402_PAYMENT_RESPONSE_META_KEY], `the settlement of ${name}`)
        const redelivered = paid._meta?.[REDELIVERED_META_KEY] === true
        ledger.record({ at: new Date().toISOString(), tool: name, amount: price.toString(), transaction: receipt.transaction, network: receipt.network })
        const onPublicCluster = await servesPublicCluster(rpcUrl, receipt.network)
        const line = receiptLine({ amount: price, transaction: receipt.transaction, network: receipt.network, redelivered, onPublicCluster }, token)
        log(`${name}: ${line}`)
        return { ...paid, content: [...paid.content, { type: 'text', text: line }] }
      }
      const refused = toolRefusal(document)
      const { code, reason: refusal } = refused
      if (attempt < retries && code !== undefined && RETRYABLE.has(code)) {
        const waitMs = retryDelayMs(delayMs, refused)
        log(`${name}: ${code}; sending the same payment again in ${waitMs} ms`)
        await sleep(waitMs)
        continue
      }
      // Refused, or the tool failed: nothing was settled, so the hold goes back.
      ledger.release(day, price)
      if (refusal !== undefined || isPaymentRequired(document)) {
        return toolError(`PAYMENT_REFUSED: the merchant refused the payment for ${name}: ${refusal ?? 'no reason given'}; nothing was charged.`)
      }
      const message = typeof document?.message === 'string' ? document.message : 'the tool failed'
      return toolError(`${code ?? 'TOOL_FAILED'}: ${name} failed after the payment was checked: ${message}; nothing was charged.`)
    }
  }

  server.setRequestHandler(CallToolRequestSchema, async (request) => await callTool(request.params.name, request.params.arguments ?? {}))
  return server
}

/** Serves the bridge on a transport (stdio for a host) until it closes. */
export async function serveBridge (server: Server, transport: Transport): Promise<void> {
  const closed = new Promise<void>(resolve => { server.onclose = resolve })
  await server.connect(transport)
  await closed
}
