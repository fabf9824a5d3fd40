import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import { A2A_VERSION_HEADER, AgentCard, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk'
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3'
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server'
import { defaultServerCallContextBuilder, JsonRpcTransportHandler, UnauthenticatedUser, validateVersion } from '@a2a-js/sdk/server'
import type { A2aTaskRepository } from '../../../db/contracts/a2a-tasks.js'
import type { Catalogue } from '../../catalogue/catalogue.js'
import type { DeliveryCore } from '../../delivery/paid-delivery.js'
import { loggableError } from '../../errors/loggable-error.js'
import { perPublicBase, type RequestTarget } from '../../http/public-url.js'
import { whenAnswered } from '../../http/when-answered.js'
import type { PaidServiceName } from '../../payment/catalog.js'
import type { X402Payments } from '../../x402/x402-payments.js'
import { createMerchantTools, type ToolServices } from '../../tools/merchant-tools.js'
import { toolErrorBodies } from '../../tools/tool-errors.js'
import { asA2aError } from './a2a-errors.js'
import { createAgentCard, legacyAgentCard } from './agent-card.js'
import { CALL_STATE, createSkillSeller, type CallState } from './paid-skill.js'
import { MerchantRequestHandler } from './request-handler.js'
import { createMerchantTaskStore } from './task-store.js'
import { requestedExtensions, TASK_META } from './x402-extension.js'

/** Base URLs (Host headers, without PUBLIC_BASE_URL) whose card and handlers are kept. */
const BASES = 32
const INTERNAL_ERROR = -32603

type RpcAnswer = { jsonrpc: string, id: string | number | null, result?: unknown, error?: unknown }
type TaskJson = { status?: { state?: string }, kind?: string, metadata?: Record<string, unknown> }
type DoorLog = { warn: (details: object, message: string) => void, error: (details: object, message: string) => void }

/** One A2A request as the door sees it; the web framework's glue fills it (plugins/app/a2a.ts). */
export interface A2aExchange extends RequestTarget {
  readonly body: unknown
  readonly headers: IncomingHttpHeaders
  /** The client's address: the failure limit counts per client. */
  readonly ip: string
  readonly id: string
  readonly log: DoorLog
  /** The answer as Node has it: whether it reached the client decides a bought task's fate. */
  readonly response: ServerResponse
}

export interface A2aDoorOptions {
  agent: { name: string, description: string, version: string }
  tokenSymbol: string
  /** The card says where MPP is taken (on HTTP and MCP; tasks take x402 only). */
  mpp: boolean
  catalogue: Catalogue
  services: ToolServices
  core: DeliveryCore
  payments: Pick<X402Payments, 'paymentRequired' | 'verifyAndClaim' | 'settle'>
  /** The x402 network (CAIP-2) named in a failure's receipt. */
  network: string
  checkFailureLimit: (client: string) => () => void
  countUnpaid: (service: PaidServiceName) => void
  tasks: A2aTaskRepository
  retentionMs: number
  publicBaseUrl: string | undefined
  log: DoorLog
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(',') : value
}

/**
 * The merchant as an A2A agent (protocol v1.0, and v0.3 through the SDK's compatibility layer):
 * the agent card and JSON-RPC over the SDK's framework-free transport handlers. The skills are the
 * paid products, sold through the a2a-x402 extension on the one paid-delivery core.
 */
export function createA2aDoor (options: A2aDoorOptions) {
  const { catalogue } = options
  const tools = createMerchantTools(options.services, () => { throw new Error('no A2A skill reads the base URL') }, catalogue)
  const seller = createSkillSeller({
    core: options.core,
    payments: options.payments,
    tools,
    checkFailureLimit: options.checkFailureLimit,
    countUnpaid: options.countUnpaid,
    network: options.network,
    catalogue
  })
  const tasks = createMerchantTaskStore(options.tasks, { retentionMs: options.retentionMs, unpaidTask: seller.unpaidTask })
  const cardAt = createAgentCard({ ...options.agent, symbol: options.tokenSymbol, catalogue, mpp: options.mpp })

  // The card names the endpoint's absolute URL, so each base URL has its card and its handlers.
  const doors = perPublicBase(options.publicBaseUrl, BASES, base => {
    const card: AgentCard = cardAt(base)
    const handler = new MerchantRequestHandler(card, tasks, seller, options.log)
    return {
      card,
      // The SDK's own JSON of the card (proto JSON: defaults left out), as its adapters serve it.
      cardText: JSON.stringify(AgentCard.toJSON(card)),
      legacyCardText: JSON.stringify(legacyAgentCard(card)),
      rpc: new JsonRpcTransportHandler(handler),
      legacy: new LegacyJsonRpcTransportHandler(handler)
    }
  })

  /** Hands a completed task fetched by another call than the one that paid (GetTask after a returnImmediately purchase) over, once its answer went out. */
  function markHandedOver (answer: RpcAnswer, call: CallState, answered: () => Promise<boolean>, exchange: A2aExchange): void {
    const signature = completedTaskOf(answer)?.metadata?.[TASK_META.payment]
    if (typeof signature !== 'string' || call.paying === true) return
    // Its answer reached the buyer now, so the payment alone no longer fetches it again (REDELIVERY=payment).
    answered().then(async sent => { if (sent) await options.core.handedOver(signature, 'a2a', exchange.id) })
      .catch((error: unknown) => exchange.log.error({ error: loggableError(error), signature }, 'a handed-over A2A answer not marked reached'))
  }

  return {
    /** POST /a2a: one JSON-RPC call, answered with its headers (the activated extensions) and body. */
    async post (exchange: A2aExchange): Promise<{ headers: Record<string, string>, body: RpcAnswer }> {
      const door = doors(exchange)
      const version = header(exchange.headers, A2A_VERSION_HEADER)
      // Without A2A-Version a client speaks v0.3 (as the SDK's own adapters read it).
      const legacy = (version ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION
      const extensionHeader = legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER
      const listed = Extensions.parseServiceParameter(legacy ? header(exchange.headers, LEGACY_HTTP_EXTENSION_HEADER) ?? header(exchange.headers, HTTP_EXTENSION_HEADER) : header(exchange.headers, HTTP_EXTENSION_HEADER))
      const { requested, x402 } = requestedExtensions(listed)
      const context = defaultServerCallContextBuilder({ extensions: requested, user: new UnauthenticatedUser(), headers: exchange.headers, requestedVersion: version })
      let completedSent = false
      const answered = whenAnswered(exchange.response)
      const call: CallState = {
        client: exchange.ip,
        requestId: exchange.id,
        reached: async () => await answered() && completedSent,
        clientGone: () => exchange.response.destroyed && !exchange.response.writableFinished,
        errorBodyOf: toolErrorBodies(exchange, exchange.log)
      }
      context.state.set(CALL_STATE, call)
      const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError
      const errorAnswer = (error: unknown): RpcAnswer => ({ jsonrpc: '2.0', id: idOf(exchange.body), error: mapError(asA2aError(error, exchange.log)) })
      let answer: RpcAnswer
      try {
        validateVersion(context.requestedVersion, door.card, 'JSONRPC')
        const handled = await (legacy ? door.legacy : door.rpc).handle(exchange.body as Record<string, unknown>, context)
        answer = Symbol.asyncIterator in handled ? await firstOfStream(handled, errorAnswer) : handled
      } catch (error) {
        answer = errorAnswer(error)
      }
      answer = withoutInternals(answer, exchange.log)
      for (const uri of x402) context.addActivatedExtension(uri)
      const activated = context.activatedExtensions ?? []
      completedSent = completedTaskOf(answer) !== undefined
      markHandedOver(answer, call, answered, exchange)
      return { headers: activated.length > 0 ? { [extensionHeader]: activated.join(', ') } : {}, body: answer }
    },

    /** The agent card's JSON: v1.0 for clients that ask with A2A-Version (the SDK's resolver sends 1.0), else v0.3 with the v1.0 interfaces beside. */
    cardText (target: RequestTarget, headers: IncomingHttpHeaders): string {
      const door = doors(target)
      const version = header(headers, A2A_VERSION_HEADER)
      return version === undefined || version === A2A_LEGACY_PROTOCOL_VERSION ? door.legacyCardText : door.cardText
    }
  }
}

/**
 * The finished task with its artifact that the answer carries (v1.0 JSON: SendMessage's `task` or
 * GetTask's task; v0.3: a `kind: "task"`), if any: the bought document reached the client if it went out.
 */
function completedTaskOf (answer: RpcAnswer): TaskJson | undefined {
  const result = answer.result as (TaskJson & { task?: TaskJson }) | undefined
  const task = result?.task ?? result
  return task?.status?.state === 'TASK_STATE_COMPLETED' || (task?.kind === 'task' && task.status?.state === 'completed') ? task : undefined
}

/** Streaming is not offered (the card says so): the SDK's stream fails on its first step, answered as one JSON-RPC error. */
async function firstOfStream (stream: AsyncGenerator<RpcAnswer>, errorAnswer: (error: unknown) => RpcAnswer): Promise<RpcAnswer> {
  try {
    const first = await stream.next()
    await stream.return(undefined)
    if (!first.done) return first.value
    return errorAnswer(new Error('empty stream'))
  } catch (error) {
    return errorAnswer(error)
  }
}

/** An error the SDK mapped from a thrown non-A2A error carries that error's text: logged, not sent. */
function withoutInternals (answer: RpcAnswer, log: DoorLog): RpcAnswer {
  const error = answer.error as { code?: number, message?: string, data?: unknown } | undefined
  if (error?.code !== INTERNAL_ERROR || error.data !== undefined) return answer
  log.error({ message: error.message }, 'A2A call failed inside the SDK')
  return { ...answer, error: { code: INTERNAL_ERROR, message: 'INTERNAL_ERROR: Internal server error; quote the request id when reporting it' } }
}

function idOf (body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}
