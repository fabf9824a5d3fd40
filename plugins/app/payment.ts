import type { FastifyReply, FastifyRequest, onRequestAbortAsyncHookHandler, onResponseAsyncHookHandler, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { isAppError } from '../../lib/errors/app-error.js'
import { errorBody } from '../../lib/errors/error-body.js'
import { isPaidServiceName, PAID_SERVICES, type PaidServiceName } from '../../lib/payment/catalog.js'
import { PAYMENT_HEADERS } from '../../lib/payment/headers.js'
import { PaymentError, type PaymentRejection } from '../../lib/payment/payment-error.js'
import { createPaymentVerifier, type ClaimedPayment } from '../../lib/payment/payment-verifier.js'
import { readPaymentProof } from '../../lib/payment/proof-headers.js'
import { createProofFailureLimit } from '../../lib/payment/proof-failure-limit.js'
import { storedResource } from '../../lib/payment/stored-resource.js'
import { checkWalletSignature } from '../../lib/payment/wallet-signature.js'
import { createRecipientAccount } from '../../lib/payment/recipient-account.js'
import { encodeReceipt, paymentRequirement, type MerchantTerms, type PaymentRequirement } from '../../lib/payment/requirements.js'
import { publicBaseUrl, requestPath } from '../../lib/http/public-url.js'
import { encodeHeaderJson, X402_HEADERS } from '../../lib/x402/payment-headers.js'
import type { X402Claim } from '../../lib/x402/x402-payments.js'
import { createX402Gate, type Challenge } from './x402-gate.js'

interface PaymentInFlight extends ClaimedPayment {
  /** Set once the claim was redeemed or released; later hooks leave it alone. */
  settled: boolean
  outcome: string
  /** How it was paid: seed proof headers, or the standard x402 flow (v1 or v2). */
  flow: 'proof' | 'x402-v1' | 'x402-v2'
  /** The x402 claim, settled in onSend once the handler succeeded. */
  x402?: X402Claim
  /** Set while the x402 settlement runs: money may be moving, nothing may release the claim. */
  settling?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Makes the route paid: the name of its entry in the price table. */
    paidService?: PaidServiceName
  }
  interface FastifyRequest {
    payment?: PaymentInFlight
  }
}

function asArray<T> (value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

function failureCode (payload: unknown): string {
  if (typeof payload !== 'string') return 'HANDLER_FAILED'
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code
    return typeof code === 'string' ? code : 'HANDLER_FAILED'
  } catch {
    return 'HANDLER_FAILED'
  }
}

/**
 * The x402 gate. A route with `config.paidService` gets a preHandler (after validation, so a
 * malformed parameter is a 400 and nobody is asked to pay for it) that answers 402 until a valid
 * proof arrives, then claims the proof for this request. The claim is redeemed when the response
 * is a 2xx and released on any failure, so a proof buys exactly one delivery.
 */
export default fp(async (fastify) => {
  const { config, store, solana } = fastify
  const x402Network = config.x402Network
  const recipient = createRecipientAccount(solana.rpc, config.paymentMint, config.paymentAddress)

  const verifier = createPaymentVerifier({
    rpc: solana.rpc,
    claims: store.claims,
    // Never judge a payment against a node that is not known to serve the configured cluster.
    ensureNetwork: async () => await solana.health.ensureVerified(error => fastify.log.fatal(error.message)),
    payTo: config.paymentAddress,
    mint: config.paymentMint,
    commitment: config.PAYMENT_COMMITMENT,
    maxAgeSeconds: config.PAYMENT_MAX_AGE_SECONDS,
    leaseMs: config.PAYMENT_LEASE_SECONDS * 1000,
    notFoundWaitMs: config.PAYMENT_NOT_FOUND_WAIT_MS
  })

  const failureLimit = createProofFailureLimit({ limit: config.PROOF_FAILURE_LIMIT, windowMs: config.RATE_LIMIT_WINDOW_MS })

  // The requirement of each service is the same for every request but its resource URL; it is
  // built once, and again only when the recipient token account becomes known.
  const requirements = new Map<PaidServiceName, { recipientTokenAccount: string | undefined, requirement: PaymentRequirement }>()

  function requirementFor (serviceName: PaidServiceName, resource: string): PaymentRequirement {
    const recipientTokenAccount = recipient.get()
    let cached = requirements.get(serviceName)
    if (cached === undefined || cached.recipientTokenAccount !== recipientTokenAccount) {
      const terms: MerchantTerms = {
        x402Network,
        payTo: config.paymentAddress,
        mint: config.paymentMint,
        symbol: config.PAYMENT_TOKEN_SYMBOL,
        label: config.AGENT_NAME,
        maxAgeSeconds: config.PAYMENT_MAX_AGE_SECONDS,
        recipientTokenAccount,
        walletSignatureRequired: config.REQUIRE_WALLET_SIGNATURE,
        feePayer: fastify.x402.feePayer.address
      }
      cached = { recipientTokenAccount, requirement: paymentRequirement(terms, PAID_SERVICES[serviceName], '') }
      requirements.set(serviceName, cached)
    }
    return { ...cached.requirement, resource }
  }

  function resourceUrl (request: FastifyRequest): string {
    return `${publicBaseUrl(request, config.PUBLIC_BASE_URL)}${requestPath(request.url)}`
  }

  // Sent as JSON text of the PaymentRequired model: its open-ended error details make the
  // schema serializer slower than JSON.stringify on this path, which unpaid traffic hits most.
  // The v1 requirements are the body; the PAYMENT-REQUIRED header carries them for x402 v2.
  function challenge (request: FastifyRequest, serviceName: PaidServiceName, rejection: PaymentRejection, statusCode = 402): Challenge {
    const url = resourceUrl(request)
    const body = {
      ...errorBody(request, statusCode, rejection.code, rejection.message, rejection.details),
      x402Version: 1,
      accepts: [requirementFor(serviceName, url)]
    }
    return {
      statusCode,
      headers: {
        'cache-control': 'no-store',
        'content-type': 'application/json; charset=utf-8',
        [X402_HEADERS.paymentRequired]: encodeHeaderJson(fastify.x402.paymentRequired(serviceName, url, rejection.message))
      },
      body: JSON.stringify(body)
    }
  }

  function sendChallenge (request: FastifyRequest, reply: FastifyReply, serviceName: PaidServiceName, rejection: PaymentRejection, statusCode = 402) {
    const answer = challenge(request, serviceName, rejection, statusCode)
    return reply.code(answer.statusCode).headers(answer.headers).send(answer.body)
  }

  const x402Gate = createX402Gate(fastify, { challenge, failureCode, resourceUrl, beforeVerify: request => failureLimit.check(request.ip) })

  function gate (serviceName: PaidServiceName): preHandlerAsyncHookHandler {
    return async function paymentGate (request, reply) {
      // X-PAYMENT / PAYMENT-SIGNATURE (and a request with several payments) are the x402 gate's.
      const x402 = await x402Gate.read(request, serviceName)
      if (x402 !== undefined) {
        if ('claim' in x402) {
          const { claim } = x402
          request.payment = { signature: claim.signature, claimId: claim.claimId, payer: claim.payer, paid: claim.amount, service: serviceName, settled: false, outcome: 'PENDING', flow: claim.flow as 'x402-v1' | 'x402-v2', x402: claim }
          return
        }
        store.audit.countUnpaid(serviceName, x402.code)
        failureLimit.record(request.ip, x402.code)
        return reply.code(x402.refusal.statusCode).headers(x402.refusal.headers).send(x402.refusal.body)
      }
      const read = readPaymentProof(request.headers)
      // HEAD never verifies, claims or spends anything: it answers like an unpaid GET.
      if ('absent' in read || request.method === 'HEAD') {
        store.audit.countUnpaid(serviceName, 'PAYMENT_REQUIRED')
        return sendChallenge(request, reply, serviceName, {
          code: 'PAYMENT_REQUIRED',
          message: `Pay ${PAID_SERVICES[serviceName].price} base units, then repeat the request with the ${PAYMENT_HEADERS.signature} and ${PAYMENT_HEADERS.wallet} headers`
        })
      }
      // Refusals before a claim name no payment the merchant can verify: counted, not stored.
      if ('rejection' in read) {
        store.audit.countUnpaid(serviceName, read.rejection.code)
        failureLimit.record(request.ip, read.rejection.code)
        return sendChallenge(request, reply, serviceName, read.rejection)
      }
      failureLimit.check(request.ip)
      const header = request.headers[PAYMENT_HEADERS.walletSignature]
      const binding = await checkWalletSignature(Array.isArray(header) ? header[0] : header, read.proof,
        { method: request.method, path: requestPath(request.url).split('?')[0] }, config.REQUIRE_WALLET_SIGNATURE)
      if (binding !== undefined) {
        store.audit.countUnpaid(serviceName, binding.code)
        failureLimit.record(request.ip, binding.code)
        return sendChallenge(request, reply, serviceName, binding)
      }
      try {
        const claimed = await verifier.verifyAndClaim(read.proof, serviceName, PAID_SERVICES[serviceName], storedResource(resourceUrl(request)))
        request.payment = { ...claimed, settled: false, outcome: 'PENDING', flow: 'proof' }
      } catch (error) {
        if (isAppError(error)) {
          store.audit.countUnpaid(serviceName, error.code)
          failureLimit.record(request.ip, error.code)
        }
        if (error instanceof PaymentError) {
          if (error.headers !== undefined) reply.headers(error.headers)
          return sendChallenge(request, reply, serviceName, error.rejection, error.statusCode)
        }
        throw error
      }
    }
  }

  function release (payment: PaymentInFlight, outcome: string) {
    payment.settled = true
    payment.outcome = outcome
    // An x402 claim's id may have been renewed by its settlement: release that one.
    store.claims.release(payment.signature, payment.x402?.claimId ?? payment.claimId)
  }

  // Deliver and redeem together: a 2xx goes out only if this request still holds the claim.
  const redeemOnSend: onSendAsyncHookHandler = async (request, reply, payload) => {
    const payment = request.payment
    // x402 payments were settled (or released) by the x402 gate's onSend hook before this one.
    if (payment === undefined || payment.settled || payment.flow !== 'proof') return payload
    if (reply.statusCode < 200 || reply.statusCode >= 300) {
      release(payment, failureCode(payload))
      return payload
    }
    payment.settled = true
    if (store.claims.redeem(payment.signature, payment.claimId)) {
      payment.outcome = 'DELIVERED'
      reply.header(PAYMENT_HEADERS.receipt, encodeReceipt({ transaction: payment.signature, network: x402Network, payer: payment.payer }))
      return payload
    }
    // The lease ran out while the handler worked and the proof went to another request.
    payment.outcome = 'PAYMENT_ALREADY_USED'
    reply.code(409).header('content-type', 'application/json; charset=utf-8')
    return JSON.stringify(errorBody(request, 409, 'PAYMENT_ALREADY_USED', 'This payment was used by another request while this one was being served'))
  }

  // The client left before the answer: give the proof back so it can be used again.
  const releaseOnAbort: onRequestAbortAsyncHookHandler = async (request) => {
    // Never while an x402 settlement runs: the transaction may be landing.
    if (request.payment !== undefined && !request.payment.settled && request.payment.settling !== true) release(request.payment, 'CLIENT_ABORTED')
  }

  const auditOnResponse: onResponseAsyncHookHandler = async (request, reply) => {
    const payment = request.payment
    if (payment === undefined) return
    if (!payment.settled && payment.settling !== true) release(payment, 'HANDLER_FAILED')
    store.audit.record({
      requestId: request.id,
      service: payment.service,
      resource: storedResource(request.url),
      payer: payment.payer,
      signature: payment.signature,
      amount: payment.paid,
      outcome: payment.outcome,
      verified: true,
      status: reply.statusCode,
      latencyMs: reply.elapsedTime,
      flow: payment.flow
    })
  }

  // Declared up front, so every request object has the same shape (no property added on the fly).
  fastify.decorateRequest('payment', undefined)

  // Only paid routes carry the gate and its hooks; free routes pay nothing for them.
  fastify.addHook('onRoute', (route) => {
    const serviceName = route.config?.paidService
    if (serviceName === undefined) return
    if (!isPaidServiceName(serviceName)) throw new Error(`route ${route.url}: unknown paid service "${String(serviceName)}"`)
    route.preHandler = [...asArray(route.preHandler), gate(serviceName)]
    route.onSend = [...asArray(route.onSend), x402Gate.settleOnSend, redeemOnSend]
    route.onRequestAbort = [...asArray(route.onRequestAbort), releaseOnAbort]
    route.onResponse = [...asArray(route.onResponse), auditOnResponse]
  })

  if (solana.health.state === 'up') recipient.resolve().catch(() => {})
}, { name: 'payment', fastify: '5.x', dependencies: ['config', 'store', 'solana', 'x402'] })
