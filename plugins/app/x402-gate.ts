import type { FastifyInstance, FastifyReply, FastifyRequest, onSendAsyncHookHandler } from 'fastify'
import type { PaidServiceName } from '../../lib/payment/catalog.js'
import type { PaymentRejection } from '../../lib/payment/payment-error.js'
import { encodeHeaderJson, readPaymentForm, X402_HEADERS } from '../../lib/x402/payment-headers.js'
import { decodePaymentHeader } from '../../lib/x402/payment-payload.js'
import type { X402Claim } from '../../lib/x402/x402-payments.js'

/** A challenge as payment.ts renders it: the status, its headers and the JSON text of the body. */
export interface Challenge {
  statusCode: number
  headers: Record<string, string>
  body: string
}

export interface X402GateOptions {
  /** The 402 (or other status) answer with the payment requirements, as the seed gate sends it. */
  challenge: (request: FastifyRequest, serviceName: PaidServiceName, rejection: PaymentRejection, statusCode?: number) => Challenge
  /** The code a failed handler answered with. */
  failureCode: (payload: unknown) => string
  resourceUrl: (request: FastifyRequest) => string
  /** Before any RPC work: throws (429) when the client's failed payments used up PROOF_FAILURE_LIMIT. */
  beforeVerify: (request: FastifyRequest) => void
}

export type X402GateResult =
  | { claim: X402Claim }
  | { refusal: Challenge, code: string }
  | undefined

function withRetryAfter (challenge: Challenge, seconds: number | undefined): Challenge {
  return seconds === undefined ? challenge : { ...challenge, headers: { ...challenge.headers, 'retry-after': String(seconds) } }
}

/**
 * The HTTP side of the standard x402 flow, driven by the payment plugin's hooks on paid routes:
 * `read` (in its preHandler) verifies and claims an X-PAYMENT / PAYMENT-SIGNATURE payment;
 * `settleOnSend` settles it only once the handler produced a 2xx, then adds the receipt. Money
 * never moves for a failed handler, and a 402 never follows money that moved.
 */
export function createX402Gate (fastify: FastifyInstance, options: X402GateOptions) {
  const { x402 } = fastify

  /** undefined: not an x402 request (the seed gate decides). HEAD never verifies nor claims. */
  async function read (request: FastifyRequest, serviceName: PaidServiceName): Promise<X402GateResult> {
    if (request.method === 'HEAD') return undefined
    const form = readPaymentForm(request.headers)
    if (form.kind === 'conflict') {
      return {
        code: 'PAYMENT_FORMS_CONFLICT',
        refusal: options.challenge(request, serviceName, {
          code: 'PAYMENT_FORMS_CONFLICT',
          message: `One payment per request: send either the proof headers or one x402 header, not ${[...new Set(form.headers)].join(' + ')}`,
          details: { headers: [...new Set(form.headers)] }
        }, 400)
      }
    }
    if (form.kind !== 'x402') return undefined
    const decoded = decodePaymentHeader(form.header)
    if ('rejection' in decoded) return { code: decoded.rejection.code, refusal: options.challenge(request, serviceName, decoded.rejection) }
    options.beforeVerify(request)
    const result = await x402.verifyAndClaim(decoded.payload, serviceName, { resource: options.resourceUrl(request), flow: form.flow })
    if (result.ok) return { claim: result.claim }
    return { code: result.code, refusal: withRetryAfter(options.challenge(request, serviceName, result, result.statusCode), result.retryAfterSeconds) }
  }

  function reject (reply: FastifyReply, challenge: Challenge): string {
    reply.code(challenge.statusCode).headers(challenge.headers)
    return challenge.body
  }

  const settleOnSend: onSendAsyncHookHandler = async (request, reply, payload) => {
    const payment = request.payment
    const claim = payment?.x402
    if (payment === undefined || claim === undefined || payment.settled) return payload
    // The handler failed: nothing is settled and the payment stays usable. (A buyer who left
    // before this point had the claim released by the abort hook, which marks it settled.)
    if (reply.statusCode < 200 || reply.statusCode >= 300) {
      payment.settled = true
      payment.outcome = options.failureCode(payload)
      await x402.release(claim)
      return payload
    }
    payment.settling = true
    const result = await x402.settle(claim)
    payment.settled = true
    if (result.ok) {
      payment.outcome = 'DELIVERED'
      reply.header(claim.flow === 'x402-v1' ? X402_HEADERS.responseV1 : X402_HEADERS.responseV2, encodeHeaderJson(result.response))
      return payload
    }
    payment.outcome = result.code
    const challenge = options.challenge(request, payment.service, { code: result.code, message: result.message })
    return reject(reply, withRetryAfter({ ...challenge, statusCode: result.pending || result.code === 'X402_FEE_PAYER_UNFUNDED' ? 503 : 402 }, result.retryAfterSeconds))
  }

  return { read, settleOnSend }
}
