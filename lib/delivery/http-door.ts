import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify'
import { loggableError } from '../errors/loggable-error.js'
import { publicBaseUrl, requestPath } from '../http/public-url.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import type { PaidServiceName } from '../payment/catalog.js'
import { PAYMENT_HEADERS } from '../payment/headers.js'
import { readPaymentProof } from '../payment/proof-headers.js'
import type { PaymentVerifier } from '../payment/payment-verifier.js'
import { storedResource } from '../contract/stored-resource.js'
import { checkWalletSignature } from '../payment/wallet-signature.js'
import { decodePaymentHeader } from '../x402/payment-payload.js'
import { encodeHeaderJson, readPaymentForm, X402_HEADERS, type PaymentForm } from '../x402/payment-headers.js'
import type { X402Payments } from '../x402/x402-payments.js'
import type { createHttpChallenges, HttpAnswer } from './http-challenges.js'
import type { AuditFlow } from '../../db/contracts/audit-log.js'
import type { DeliveryCore, PaidDelivery, Redelivered } from './paid-delivery.js'
import { refusal, refusalOf, type Refusal } from '../contract/refusal.js'
import { requestKey } from '../contract/request-key.js'

export interface HttpDoorOptions {
  core: DeliveryCore
  proofs: PaymentVerifier
  x402: Pick<X402Payments, 'verifyAndClaim' | 'settle'>
  challenges: ReturnType<typeof createHttpChallenges>
  catalogue: Catalogue
  publicBaseUrl: string | undefined
  requireWalletSignature: boolean
  /** Before any RPC work: throws (429) when the client's failed payments used up PROOF_FAILURE_LIMIT; else counts the attempt as under way until the returned function is called. */
  checkFailureLimit: (client: string) => () => void
  /** Counts a request that paid nothing. */
  countUnpaid: (service: PaidServiceName) => void
  /** Sets the headers every answer of the service carries (security, CORS, request id). */
  setFixedHeaders: (request: FastifyRequest, reply: FastifyReply) => void
  /** The payment page for a person's browser (lib/paywall/), or undefined: every 402 in JSON. */
  paywall?: {
    wanted: (request: FastifyRequest) => boolean
    page: (service: PaidServiceName, request: FastifyRequest, challenge: HttpAnswer, resource: string) => HttpAnswer
  }
}

const PAID_ANSWER_HEADERS = { 'cache-control': 'no-store' } as const

/** The largest answer kept for re-delivery; a larger one (none of today's products) is delivered once, not kept. */
const MAX_KEPT_ANSWER_BYTES = 256 * 1024

/** Where a request that came with a payment stands once its payment was read: the handler runs next (held), or the door answers now. */
type Opened =
  | { kind: 'held', delivery: PaidDelivery }
  | { kind: 'redelivered', again: Redelivered }
  | { kind: 'unpaid' }
  | Refusal

/** The flow a request's payment form names, for the attempt's metrics label: a conflict counts as its first form. */
function flowOfForm (form: PaymentForm): AuditFlow {
  if (form.kind === 'x402') return form.flow
  if (form.kind === 'conflict') return form.headers[0] === X402_HEADERS.paymentV1 ? 'x402-v1' : form.headers[0] === X402_HEADERS.paymentV2 ? 'x402-v2' : 'proof'
  return 'proof'
}

/**
 * The HTTP door of the paid-delivery core: one preHandler (the gate) and one onSend hook per paid
 * route. It only translates: payment headers in (proof headers, X-PAYMENT, PAYMENT-SIGNATURE),
 * answers out (402 challenges, the receipt header of the form that paid). Verification, the claim,
 * settlement and the record are the core's and the payment methods'.
 */
export function createHttpDoor (options: HttpDoorOptions) {
  const { core, proofs, x402, challenges } = options

  const resourceUrl = (request: FastifyRequest) => `${publicBaseUrl(request, options.publicBaseUrl)}${requestPath(request.url)}`

  function send (reply: FastifyReply, answer: HttpAnswer) {
    reply.code(answer.statusCode).headers(answer.headers).send(answer.body)
  }

  /** The 402 of a request without payment: the JSON challenge, or the same challenge as a page for a browser's navigation. */
  function sendUnpaid (request: FastifyRequest, reply: FastifyReply, service: PaidServiceName) {
    const challenge = challenges.unpaid(service, request)
    const { paywall } = options
    send(reply, paywall !== undefined && paywall.wanted(request) ? paywall.page(service, request, challenge, resourceUrl(request)) : challenge)
  }

  /** Verifies and claims the request's payment: the delivery, or why not. */
  async function open (request: FastifyRequest, service: PaidServiceName, form: PaymentForm, underWay: Array<() => void>): Promise<Opened> {
    const bought = requestKey(request.method, requestPath(request.url))
    if (form.kind === 'conflict') {
      const headers = [...new Set(form.headers)]
      return refusal('PAYMENT_FORMS_CONFLICT', `One payment per request: send either the proof headers or one x402 header, not ${headers.join(' + ')}`, { details: { headers } })
    }
    if (form.kind === 'x402') {
      const decoded = decodePaymentHeader(form.header)
      if (decoded.kind === 'refused') return decoded
      underWay.push(options.checkFailureLimit(request.ip))
      const claim = await x402.verifyAndClaim(decoded.payload, service, { resource: resourceUrl(request), flow: form.flow, requestKey: bought })
      if (claim.kind === 'refused') return claim
      if (claim.kind === 'redelivered') return { kind: 'redelivered', again: core.redelivered(claim.answer, form.flow) }
      const held = claim.payment
      return { kind: 'held', delivery: core.begin(held, async (answer) => await x402.settle(held, answer), request.ip) }
    }
    const read = readPaymentProof(request.headers)
    if (read.kind === 'absent') return { kind: 'unpaid' }
    if (read.kind === 'refused') return read
    underWay.push(options.checkFailureLimit(request.ip))
    const header = request.headers[PAYMENT_HEADERS.walletSignature]
    const walletSignature = Array.isArray(header) ? header[0] : header
    const binding = await checkWalletSignature(walletSignature, read.proof,
      { method: request.method, path: requestPath(request.url).split('?')[0] }, options.requireWalletSignature)
    if (binding !== undefined) return binding
    const verified = await proofs.verifyAndClaim(read.proof, service, options.catalogue.product(service),
      { resource: storedResource(resourceUrl(request)), requestKey: bought, buyerProven: walletSignature !== undefined && walletSignature !== '' })
    if (verified.kind === 'refused') return verified
    if (verified.kind === 'redelivered') return { kind: 'redelivered', again: core.redelivered(verified.answer, 'proof') }
    const held = verified.payment
    return { kind: 'held', delivery: core.begin(held, async (answer) => await proofs.settle(held, answer), request.ip) }
  }

  /** The outcome of a payment that came: held (the handler runs next) or answered here. */
  async function admit (request: FastifyRequest, reply: FastifyReply, service: PaidServiceName): Promise<boolean> {
    const underWay: Array<() => void> = []
    try {
      return await decide(request, reply, service, underWay)
    } finally {
      // After a refusal was recorded: the attempt is no longer under way.
      for (const done of underWay) done()
    }
  }

  async function decide (request: FastifyRequest, reply: FastifyReply, service: PaidServiceName, underWay: Array<() => void>): Promise<boolean> {
    const form = readPaymentForm(request.headers)
    let opened: Opened
    try {
      opened = await open(request, service, form, underWay)
    } catch (error) {
      const known = refusalOf(error)
      if (known === undefined) throw error
      // The node's or the store's failure, never the buyer's: a summary goes to the log.
      if (known.statusCode >= 500) request.log.warn({ error: loggableError((error as { cause?: unknown }).cause ?? error), code: known.code }, 'request failed')
      opened = known
    }
    if (opened.kind === 'unpaid') {
      options.countUnpaid(service)
      request.outcome = 'PAYMENT_REQUIRED'
      sendUnpaid(request, reply, service)
      return false
    }
    if (opened.kind === 'refused') {
      request.outcome = opened.code
      send(reply, challenges.refused(service, core.refused(service, flowOfForm(form), request.ip, opened), request.id, resourceUrl(request)))
      return false
    }
    if (opened.kind === 'redelivered') {
      redeliver(request, reply, opened.again)
      return false
    }
    hold(request, reply, opened.delivery, performance.now())
    return true
  }

  /** Records the payment once its answer went out (reached) or the client left first. */
  function recordWhenAnswered (request: FastifyRequest, reply: FastifyReply, record: (reached: boolean) => Promise<void>): void {
    const answered = (reached: boolean) => {
      reply.raw.off('finish', finished).off('close', closed)
      record(reached).catch((error: unknown) => request.log.error({ error: loggableError(error) }, 'paid request not recorded'))
    }
    // 'finish' when the answer went out (light-my-request emits only that, and never sets
    // writableFinished), 'close' when the client left first.
    const finished = () => answered(true)
    const closed = () => answered(reply.raw.writableFinished)
    reply.raw.once('finish', finished).once('close', closed)
  }

  /** A kept answer served again as it was delivered: the same status, body and receipt; nothing charged, nothing computed. */
  function redeliver (request: FastifyRequest, reply: FastifyReply, redelivered: Redelivered): void {
    const { answer, payment } = redelivered
    request.outcome = 'DELIVERED'
    recordWhenAnswered(request, reply, async reached => await redelivered.record({ requestId: request.id, status: () => reply.statusCode, reached }))
    reply.code(answer.status).headers(PAID_ANSWER_HEADERS).header('content-type', answer.contentType)
      .header(...receiptHeader(payment.flow, answer.receipt)).header(PAYMENT_HEADERS.redelivered, 'true').send(answer.body)
  }

  // Watched only on requests that hold a claim, as Fastify's onRequestAbort would be, without its
  // listener on every request (a 402 included). Once the answer is out or the client is gone, the
  // payment leaves its audit row; a client that left before settlement gives the claim back.
  function hold (request: FastifyRequest, reply: FastifyReply, delivery: PaidDelivery, startedAt: number): void {
    request.payment = delivery
    recordWhenAnswered(request, reply, async reached => {
      // Written at once when the answer went out (tests and tools read it right after).
      if (!reached) await delivery.abort()
      await delivery.record({ requestId: request.id, status: () => !reached && delivery.outcome === 'CLIENT_ABORTED' ? 499 : reply.statusCode, startedAt, reached })
    })
  }

  // Callback style: a request without any payment header (the flood unpaid traffic is) is answered
  // synchronously, with no promise; only a payment goes through the asynchronous checks.
  function gate (service: PaidServiceName): preHandlerHookHandler {
    return function paymentGate (request, reply, done) {
      options.setFixedHeaders(request, reply)
      // HEAD never verifies, claims or spends anything: it answers like an unpaid GET.
      if (request.method === 'HEAD' || readPaymentForm(request.headers).kind === 'none') {
        options.countUnpaid(service)
        request.outcome = 'PAYMENT_REQUIRED'
        sendUnpaid(request, reply, service)
        return
      }
      admit(request, reply, service).then(held => { if (held) done() }, done)
    }
  }

  /** The handler answered: a 2xx is settled (x402) or redeemed (proof) before a byte leaves; anything else gives the claim back. */
  async function deliver (request: FastifyRequest, reply: FastifyReply, payload: unknown, delivery: PaidDelivery): Promise<unknown> {
    if (reply.statusCode < 200 || reply.statusCode >= 300) {
      await delivery.fail(request.outcome ?? 'HANDLER_FAILED')
      return payload
    }
    const result = await delivery.complete(answerToKeep(reply, payload))
    if (result.kind === 'settled') {
      reply.headers(PAID_ANSWER_HEADERS).header(...receiptHeader(delivery.payment.flow, result.receipt))
      return payload
    }
    request.outcome = result.code
    const answer = challenges.refused(delivery.payment.service, result, request.id, resourceUrl(request))
    reply.code(answer.statusCode).headers(answer.headers)
    return answer.body
  }

  const deliveryHook: onSendHookHandler = (request, reply, payload, done) => {
    const delivery = request.payment
    if (delivery === undefined || delivery.state !== 'held') done(null, payload)
    else deliver(request, reply, payload, delivery).then(sent => done(null, sent), done)
  }

  return { gate, deliveryHook }
}

/** The receipt in the header of the form that paid: PAYMENT-RESPONSE (v2), else X-PAYMENT-RESPONSE (v1 and proofs). */
function receiptHeader (flow: AuditFlow, receipt: Record<string, unknown>): [string, string] {
  return [flow === 'x402-v2' ? X402_HEADERS.responseV2 : X402_HEADERS.responseV1, encodeHeaderJson(receipt)]
}

/** The serialized answer about to be delivered, as kept for re-delivery (a route's JSON is a string here). */
function answerToKeep (reply: FastifyReply, payload: unknown) {
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined
  if (body === undefined || Buffer.byteLength(body) > MAX_KEPT_ANSWER_BYTES) return undefined
  return { status: reply.statusCode, contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'), body }
}
