import type { IncomingHttpHeaders } from 'node:http'
import { loggableError } from '../errors/loggable-error.js'
import { publicBaseUrl, requestPath } from '../http/public-url.js'
import type { PaidServiceName } from '../payment/catalog.js'
import { PAYMENT_HEADERS } from '../payment/headers.js'
import { encodeHeaderJson } from '../x402/payment-headers.js'
import type { createHttpChallenges } from './http-challenges.js'
import type { HttpAnswer } from '../http/http-answer.js'
import { createMethodPicker, type HttpPaymentMethod, type Named } from './http-payment-method.js'
import type { AuditFlow } from '../../db/contracts/audit-log.js'
import type { DeliveryCore, PaidDelivery, Redelivered } from '../delivery/paid-delivery.js'
import { admitPayment } from '../delivery/paid-call.js'
import { refusalOf } from '../contract/refusal.js'
import { requestKey } from '../contract/request-key.js'
import { publishChallenge } from '../metrics/events.js'

/**
 * One HTTP request and its answer as the door sees them: what it reads of the request and how it
 * answers. The web framework's glue fills it (plugins/app/payment.ts from Fastify's request and
 * reply), so the door names no framework.
 */
export interface HttpExchange {
  readonly method: string
  /** The path and query as sent. */
  readonly url: string
  readonly headers: IncomingHttpHeaders
  /** The path parameters the route matched (the payment page shows them). */
  readonly params: unknown
  readonly protocol: string
  readonly host: string
  /** The client's address: the failure limit counts per client. */
  readonly ip: string
  /** The request id every answer and log line carries. */
  readonly id: string
  readonly log: { warn: (details: object, message: string) => void, error: (details: object, message: string) => void }
  /** The status of the answer as it stands (the handler's, once it answered). */
  readonly statusCode: number
  /** The answer's content type as the handler set it. */
  readonly contentType: string | undefined
  /** The code the request log and metrics show for this request. */
  outcome: string | undefined
  /** The paid delivery this request holds, once its payment was verified and claimed. */
  payment: PaidDelivery | undefined
  /** Answers now; the handler does not run. */
  send: (answer: HttpAnswer) => void
  /** Sets the status (when given) and headers of the answer about to leave. */
  setAnswer: (headers: Record<string, string>, statusCode?: number) => void
  /** Calls `then` once: reached true when the answer went out, false when the client left first. */
  whenFinished: (then: (reached: boolean) => void) => void
}

export interface HttpDoorOptions {
  core: DeliveryCore
  /** The ways to pay, in the order they are asked whether a request names them (httpPaymentMethods of http-methods.ts). */
  methods: readonly HttpPaymentMethod[]
  challenges: ReturnType<typeof createHttpChallenges>
  publicBaseUrl: string | undefined
  /** Before any RPC work: throws (429) when the client's failed payments used up PROOF_FAILURE_LIMIT; else counts the attempt as under way until the returned function is called. */
  checkFailureLimit: (client: string) => () => void
  /** Counts a request that paid nothing. */
  countUnpaid: (service: PaidServiceName) => void
  /** The payment page for a person's browser (lib/paywall/), or undefined: every 402 in JSON. */
  paywall?: {
    wanted: (request: HttpExchange) => boolean
    page: (service: PaidServiceName, request: HttpExchange, challenge: HttpAnswer, resource: string) => HttpAnswer
  }
}

const PAID_ANSWER_HEADERS = { 'cache-control': 'no-store' } as const

/** The largest answer kept for re-delivery; a larger one (none of today's products) is delivered once, not kept. */
const MAX_KEPT_ANSWER_BYTES = 256 * 1024

/** The way to pay a request names, or the conflict of two. */
type Paying = Exclude<Named, { kind: 'none' }>

/**
 * The HTTP door of the paid-delivery core: a gate before the handler and a delivery step as its
 * answer leaves, which the framework's glue runs for every paid route. It only translates:
 * payment headers in (the way to pay a request names, picked from `methods`), answers out (402
 * challenges, the receipt header of the form that paid). Verification, the claim, settlement and
 * the record are the core's and the payment methods'.
 */
export function createHttpDoor (options: HttpDoorOptions) {
  const { core, challenges } = options
  const named = createMethodPicker(options.methods)
  const receiptHeaders = new Map(options.methods.map(method => [method.flow, method]))

  /** The receipt in the answer header of the way that paid. */
  function receiptHeader (flow: AuditFlow, receipt: Record<string, unknown>): [string, string] {
    const method = receiptHeaders.get(flow)
    if (method === undefined) throw new Error(`no way to pay over HTTP has the flow ${flow}`)
    return [method.receiptHeader, method.encodeReceipt === undefined ? encodeHeaderJson(receipt) : method.encodeReceipt(receipt)]
  }

  const resourceUrl = (exchange: HttpExchange) => `${publicBaseUrl(exchange, options.publicBaseUrl)}${requestPath(exchange.url)}`

  /** The 402 of a request without payment: the JSON challenge, or the same challenge as a page for a browser's navigation. */
  function sendUnpaid (exchange: HttpExchange, service: PaidServiceName) {
    options.countUnpaid(service)
    publishChallenge({ service, door: 'http' })
    exchange.outcome = 'PAYMENT_REQUIRED'
    const challenge = challenges.unpaid(service, exchange)
    const { paywall } = options
    exchange.send(paywall !== undefined && paywall.wanted(exchange) ? paywall.page(service, exchange, challenge, resourceUrl(exchange)) : challenge)
  }

  /**
   * A request that came with a payment: its way to pay verifies and claims it, then the core's
   * first phase (lib/delivery/paid-call.ts) records a refusal, serves a kept answer again, or begins
   * the delivery the handler's answer completes. True when the handler runs next.
   */
  async function admit (exchange: HttpExchange, service: PaidServiceName, paying: Paying): Promise<boolean> {
    const admitted = await admitPayment(core, { service, flow: paying.method.flow, client: exchange.ip }, async (attempt) => {
      if (paying.kind === 'conflict') return paying.refusal
      try {
        return await paying.method.open({
          request: exchange,
          service,
          resource: resourceUrl(exchange),
          requestKey: requestKey(exchange.method, requestPath(exchange.url)),
          attempt: () => { attempt(options.checkFailureLimit(exchange.ip)) }
        })
      } catch (error) {
        const known = refusalOf(error)
        // The node's or the store's failure, never the buyer's: a summary goes to the log.
        if (known !== undefined && known.statusCode >= 500) exchange.log.warn({ error: loggableError((error as { cause?: unknown }).cause ?? error), code: known.code }, 'request failed')
        throw error
      }
    })
    if (admitted.kind === 'unpaid') {
      sendUnpaid(exchange, service)
      return false
    }
    if (admitted.kind === 'refused') {
      exchange.outcome = admitted.refusal.code
      exchange.send(challenges.refused(service, admitted.refusal, exchange.id, resourceUrl(exchange)))
      return false
    }
    if (admitted.kind === 'redelivered') {
      redeliver(exchange, admitted.again)
      return false
    }
    hold(exchange, admitted.delivery, performance.now())
    return true
  }

  /** Records the payment once its answer went out (reached) or the client left first. */
  function recordWhenAnswered (exchange: HttpExchange, record: (reached: boolean) => Promise<void>): void {
    exchange.whenFinished(reached => {
      record(reached).catch((error: unknown) => exchange.log.error({ error: loggableError(error) }, 'paid request not recorded'))
    })
  }

  /** A kept answer served again as it was delivered: the same status, body and receipt; nothing charged, nothing computed. */
  function redeliver (exchange: HttpExchange, redelivered: Redelivered): void {
    const { answer, payment } = redelivered
    exchange.outcome = 'DELIVERED'
    recordWhenAnswered(exchange, async reached => await redelivered.record({ requestId: exchange.id, status: () => exchange.statusCode, reached }))
    const [receiptName, receipt] = receiptHeader(payment.flow, answer.receipt)
    exchange.send({
      statusCode: answer.status,
      headers: { ...PAID_ANSWER_HEADERS, 'content-type': answer.contentType, [receiptName]: receipt, [PAYMENT_HEADERS.redelivered]: 'true' },
      body: answer.body
    })
  }

  // Watched only on requests that hold a claim, as Fastify's onRequestAbort would be, without its
  // listener on every request (a 402 included). Once the answer is out or the client is gone, the
  // payment leaves its audit row; a client that left before settlement gives the claim back.
  function hold (exchange: HttpExchange, delivery: PaidDelivery, startedAt: number): void {
    exchange.payment = delivery
    recordWhenAnswered(exchange, async reached => {
      // Written at once when the answer went out (tests and tools read it right after).
      if (!reached) await delivery.abort()
      await delivery.record({ requestId: exchange.id, status: () => !reached && delivery.outcome === 'CLIENT_ABORTED' ? 499 : exchange.statusCode, startedAt, reached })
    })
  }

  /**
   * Before the handler of a paid route: true when the request holds its payment and the handler
   * runs next; false when the door answered (unpaid, refused, re-delivered). A request without
   * any payment header (the flood unpaid traffic is) is answered synchronously, with no promise;
   * only a payment goes through the asynchronous checks.
   */
  function gate (exchange: HttpExchange, service: PaidServiceName): false | Promise<boolean> {
    // HEAD never verifies, claims or spends anything: it answers like an unpaid GET.
    const paying = exchange.method === 'HEAD' ? undefined : named(exchange.headers)
    if (paying === undefined || paying.kind === 'none') {
      sendUnpaid(exchange, service)
      return false
    }
    return admit(exchange, service, paying)
  }

  /**
   * The handler answered `payload` for a request that holds `delivery`: a 2xx is settled (x402) or
   * redeemed (proof) before a byte leaves; anything else gives the claim back. Answers the payload
   * to send: the handler's, or the refusal's when settlement failed.
   */
  async function deliver (exchange: HttpExchange, payload: unknown, delivery: PaidDelivery): Promise<unknown> {
    if (exchange.statusCode < 200 || exchange.statusCode >= 300) {
      await delivery.fail(exchange.outcome ?? 'HANDLER_FAILED')
      return payload
    }
    const result = await delivery.complete(answerToKeep(exchange, payload))
    if (result.kind === 'settled') {
      const [receiptName, receipt] = receiptHeader(delivery.payment.flow, result.receipt)
      exchange.setAnswer({ ...PAID_ANSWER_HEADERS, [receiptName]: receipt })
      return payload
    }
    exchange.outcome = result.code
    const answer = challenges.refused(delivery.payment.service, result, exchange.id, resourceUrl(exchange))
    exchange.setAnswer(answer.headers, answer.statusCode)
    return answer.body
  }

  /** True when the request names a way to pay (one or more): a route that can never be bought refuses it as malformed input. */
  const carriesPayment = (headers: HttpExchange['headers']) => named(headers).kind !== 'none'

  return { gate, deliver, carriesPayment }
}

/** The serialized answer about to be delivered, as kept for re-delivery (a route's JSON is a string here). */
function answerToKeep (exchange: HttpExchange, payload: unknown) {
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined
  if (body === undefined || Buffer.byteLength(body) > MAX_KEPT_ANSWER_BYTES) return undefined
  return { status: exchange.statusCode, contentType: exchange.contentType ?? 'application/json; charset=utf-8', body }
}
