import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { hookList } from '../../lib/http/route-hooks.js'
import { setFixedHeaders } from './response-headers.js'
import { isAppError } from '../../lib/errors/app-error.js'
import { errorBody } from '../../lib/errors/error-body.js'
import { loggableError } from '../../lib/errors/loggable-error.js'
import { storeUnavailable } from '../../lib/errors/store-unavailable.js'
import { isPaidServiceName, PAID_SERVICES, type PaidServiceName } from '../../lib/payment/catalog.js'
import { PAYMENT_HEADERS } from '../../lib/payment/headers.js'
import { PaymentError, type PaymentRejection } from '../../lib/payment/payment-error.js'
import { createPaymentVerifier, type ClaimedPayment } from '../../lib/payment/payment-verifier.js'
import { readPaymentProof } from '../../lib/payment/proof-headers.js'
import { createProofFailureLimit } from '../../lib/payment/proof-failure-limit.js'
import { storedResource } from '../../lib/payment/stored-resource.js'
import { checkWalletSignature } from '../../lib/payment/wallet-signature.js'
import { createRecipientAccount } from '../../lib/payment/recipient-account.js'
import { encodeReceipt, paymentRequirement, paymentRequiredRejection, type MerchantTerms } from '../../lib/payment/requirements.js'
import { createChallengeBodies, type ChallengeBodies } from '../../lib/payment/challenge.js'
import { perResourceUrl, publicBaseUrl, requestPath } from '../../lib/http/public-url.js'
import { encodeHeaderJson, readPaymentForm, X402_HEADERS } from '../../lib/x402/payment-headers.js'
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

  // A service's challenge is the same for every request but its request id and resource URL: its
  // body text is made once (lib/payment/challenge.ts), and again only when the recipient token
  // account becomes known; the answer without payment (v2 PAYMENT-REQUIRED header and v1 body
  // text) is kept per resource URL.
  const UNPAID_ANSWERS_KEPT = 1024
  interface UnpaidAnswer { paymentRequired: string, body: (requestId: string) => string }
  interface ServiceChallenge { recipientTokenAccount: string | undefined, bodies: ChallengeBodies, unpaid: (request: FastifyRequest) => UnpaidAnswer }
  const challenges = new Map<PaidServiceName, ServiceChallenge>()

  function challengeOf (serviceName: PaidServiceName): ServiceChallenge {
    const recipientTokenAccount = recipient.get()
    let cached = challenges.get(serviceName)
    if (cached === undefined || cached.recipientTokenAccount !== recipientTokenAccount) {
      const service = PAID_SERVICES[serviceName]
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
      const bodies = createChallengeBodies(paymentRequirement(terms, service, ''), paymentRequiredRejection(service))
      cached = {
        recipientTokenAccount,
        bodies,
        unpaid: perResourceUrl(config.PUBLIC_BASE_URL, UNPAID_ANSWERS_KEPT, (url): UnpaidAnswer => ({
          paymentRequired: encodeHeaderJson(fastify.x402.paymentRequired(serviceName, url, X402_PAYMENT_REQUIRED)),
          body: bodies.paymentRequiredAt(url)
        }))
      }
      challenges.set(serviceName, cached)
    }
    return cached
  }

  function resourceUrl (request: FastifyRequest): string {
    return `${publicBaseUrl(request, config.PUBLIC_BASE_URL)}${requestPath(request.url)}`
  }

  // What the official x402 servers say in a plain challenge's PAYMENT-REQUIRED: a v2 client pays
  // with PAYMENT-SIGNATURE, so the body's instructions (for the proof headers) would mislead it.
  const X402_PAYMENT_REQUIRED = 'Payment required'
  const CHALLENGE_HEADERS = { 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' }

  // The v1 requirements are the body; the PAYMENT-REQUIRED header carries them for x402 v2.
  function challenge (request: FastifyRequest, serviceName: PaidServiceName, rejection: PaymentRejection, statusCode = 402): Challenge {
    const url = resourceUrl(request)
    return {
      statusCode,
      headers: { ...CHALLENGE_HEADERS, [X402_HEADERS.paymentRequired]: encodeHeaderJson(fastify.x402.paymentRequired(serviceName, url, rejection.message)) },
      body: challengeOf(serviceName).bodies.refused(rejection, statusCode, request.id, url)
    }
  }

  function sendChallenge (reply: FastifyReply, answer: Challenge) {
    return reply.code(answer.statusCode).headers(answer.headers).send(answer.body)
  }

  /** The answer to a request without payment: made once per resource URL, the request id spliced in. */
  function sendPaymentRequired (request: FastifyRequest, reply: FastifyReply, serviceName: PaidServiceName) {
    const answer = challengeOf(serviceName).unpaid(request)
    reply.code(402).headers(CHALLENGE_HEADERS).header(X402_HEADERS.paymentRequired, answer.paymentRequired).send(answer.body(request.id))
  }

  const x402Gate = createX402Gate(fastify, { challenge, failureCode, resourceUrl, beforeVerify: request => failureLimit.check(request.ip) })

  /** An X-PAYMENT / PAYMENT-SIGNATURE payment (or several payments at once): true when it answered itself. */
  async function checkX402 (request: FastifyRequest, reply: FastifyReply, serviceName: PaidServiceName): Promise<boolean> {
    const x402 = await x402Gate.read(request, serviceName)
    if (x402 === undefined) return await checkProof(request, reply, serviceName)
    if ('claim' in x402) {
      const { claim } = x402
      holdPayment(request, { signature: claim.signature, claimId: claim.claimId, payer: claim.payer, paid: claim.amount, service: serviceName, settled: false, outcome: 'PENDING', flow: claim.flow as 'x402-v1' | 'x402-v2', x402: claim })
      return false
    }
    store.audit.countUnpaid(serviceName, x402.code)
    failureLimit.record(request.ip, x402.code)
    sendChallenge(reply, x402.refusal)
    return true
  }

  /** Verifies seed proof headers and claims the proof; true when it answered (a challenge) itself. */
  async function checkProof (request: FastifyRequest, reply: FastifyReply, serviceName: PaidServiceName): Promise<boolean> {
    const read = readPaymentProof(request.headers)
    const refuse = (rejection: PaymentRejection, statusCode = 402) => {
      sendChallenge(reply, challenge(request, serviceName, rejection, statusCode))
      return true
    }
    if ('absent' in read) {
      sendPaymentRequired(request, reply, serviceName)
      return true
    }
    // Refusals before a claim name no payment the merchant can verify: counted, not stored.
    if ('rejection' in read) {
      store.audit.countUnpaid(serviceName, read.rejection.code)
      failureLimit.record(request.ip, read.rejection.code)
      return refuse(read.rejection)
    }
    failureLimit.check(request.ip)
    const header = request.headers[PAYMENT_HEADERS.walletSignature]
    const binding = await checkWalletSignature(Array.isArray(header) ? header[0] : header, read.proof,
      { method: request.method, path: requestPath(request.url).split('?')[0] }, config.REQUIRE_WALLET_SIGNATURE)
    if (binding !== undefined) {
      store.audit.countUnpaid(serviceName, binding.code)
      failureLimit.record(request.ip, binding.code)
      return refuse(binding)
    }
    try {
      const claimed = await verifier.verifyAndClaim(read.proof, serviceName, PAID_SERVICES[serviceName], storedResource(resourceUrl(request)))
      holdPayment(request, { ...claimed, settled: false, outcome: 'PENDING', flow: 'proof' })
      return false
    } catch (error) {
      if (isAppError(error)) {
        store.audit.countUnpaid(serviceName, error.code)
        failureLimit.record(request.ip, error.code)
      }
      if (error instanceof PaymentError) {
        if (error.headers !== undefined) reply.headers(error.headers)
        return refuse(error.rejection, error.statusCode)
      }
      throw error
    }
  }

  // Callback style: a request without any payment header (the flood unpaid traffic is) is answered
  // synchronously, with no promise; only a payment goes through the asynchronous checks.
  function gate (serviceName: PaidServiceName): preHandlerHookHandler {
    return function paymentGate (request, reply, done) {
      // Paid routes set the fixed headers here, first thing, rather than in a hook (config.setsFixedHeaders).
      setFixedHeaders(request, reply)
      // HEAD never verifies, claims or spends anything: it answers like an unpaid GET.
      if (request.method === 'HEAD' || readPaymentForm(request.headers).kind === 'none') {
        store.audit.countUnpaid(serviceName, 'PAYMENT_REQUIRED')
        sendPaymentRequired(request, reply, serviceName)
        return
      }
      auditWhenAnswered(request, reply, performance.now())
      checkX402(request, reply, serviceName).then(answered => { if (!answered) done() }, done)
    }
  }

  // A release that fails (the database went away) leaves the claim pending: its lease runs out
  // and the same proof works again, so the failure is logged, not thrown at the client.
  async function release (request: FastifyRequest, payment: PaymentInFlight, outcome: string) {
    payment.settled = true
    payment.outcome = outcome
    // An x402 claim's id may have been renewed by its settlement: release that one.
    try {
      await store.claims.release(payment.signature, payment.x402?.claimId ?? payment.claimId)
    } catch (error) {
      request.log.warn({ error: loggableError(error), signature: payment.signature }, 'claim not released; it frees itself when its lease runs out')
    }
  }

  // Deliver and redeem together: a 2xx goes out only if this request still holds the claim.
  async function redeemOnSend (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const payment = request.payment
    // x402 payments were settled (or released) by the x402 gate's onSend hook before this one.
    if (payment === undefined || payment.settled || payment.flow !== 'proof') return payload
    if (reply.statusCode < 200 || reply.statusCode >= 300) {
      await release(request, payment, failureCode(payload))
      return payload
    }
    payment.settled = true
    let redeemed: boolean
    try {
      redeemed = await store.claims.redeem(payment.signature, payment.claimId)
    } catch (error) {
      // Not known to be spent: no data goes out, and the proof is given back (or, if the database
      // is gone, frees itself when its lease runs out).
      const failure = isAppError(error) ? error : storeUnavailable(error)
      request.log.warn({ error: loggableError(error), code: failure.code }, 'delivery withheld: the claim could not be redeemed')
      await release(request, payment, failure.code)
      reply.code(failure.statusCode).headers(failure.headers ?? {}).header('content-type', 'application/json; charset=utf-8')
      return JSON.stringify(errorBody(request, failure.statusCode, failure.code, failure.message, failure.details))
    }
    if (redeemed) {
      payment.outcome = 'DELIVERED'
      reply.header(PAYMENT_HEADERS.receipt, encodeReceipt({ transaction: payment.signature, network: x402Network, payer: payment.payer }))
      return payload
    }
    // The lease ran out while the handler worked and the proof went to another request.
    payment.outcome = 'PAYMENT_ALREADY_USED'
    reply.code(409).header('content-type', 'application/json; charset=utf-8')
    return JSON.stringify(errorBody(request, 409, 'PAYMENT_ALREADY_USED', 'This payment was used by another request while this one was being served'))
  }

  // The client left before the answer: give the proof back so it can be used again. Watched only
  // on requests that hold a claim, as Fastify's onRequestAbort would (the request closed while
  // aborted), but without its listener on every request, a 402 included.
  function holdPayment (request: FastifyRequest, payment: PaymentInFlight): void {
    request.payment = payment
    request.raw.once('close', () => {
      // Never while an x402 settlement runs: the transaction may be landing.
      if (!request.raw.aborted || payment.settled || payment.settling === true) return
      release(request, payment, 'CLIENT_ABORTED').catch((error: unknown) => request.log.error({ error: loggableError(error) }, 'claim of an aborted request not released'))
    })
  }

  async function audit (request: FastifyRequest, reply: FastifyReply, payment: PaymentInFlight, latencyMs: number): Promise<void> {
    if (!payment.settled && payment.settling !== true) await release(request, payment, 'HANDLER_FAILED')
    await store.audit.record({
      requestId: request.id,
      service: payment.service,
      resource: storedResource(request.url),
      payer: payment.payer,
      signature: payment.signature,
      amount: payment.paid,
      outcome: payment.outcome,
      verified: true,
      status: reply.statusCode,
      latencyMs,
      flow: payment.flow
    }).catch((error: unknown) => request.log.error({ error: loggableError(error), signature: payment.signature, outcome: payment.outcome }, 'audit row not written'))
  }

  // Once the answer is out (or failed), a request that claimed a payment leaves its audit row,
  // timed from the gate. Watched only on requests that brought a payment: a route response hook
  // would make Fastify watch every answer, each 402 included.
  function auditWhenAnswered (request: FastifyRequest, reply: FastifyReply, startedAt: number): void {
    const answered = () => {
      reply.raw.off('finish', answered).off('error', answered)
      const payment = request.payment
      if (payment === undefined) return
      audit(request, reply, payment, performance.now() - startedAt).catch((error: unknown) => request.log.error({ error: loggableError(error) }, 'paid request not audited'))
    }
    reply.raw.once('finish', answered).once('error', answered)
  }

  // Callback style: a request that holds no payment (every 402) ends its hook synchronously,
  // without a promise; one that does is settled (x402) or redeemed (proof headers) first.
  async function settleOrRedeem (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const settled = await x402Gate.settleOnSend.call(fastify, request, reply, payload)
    return await redeemOnSend(request, reply, settled)
  }
  const deliveryHook: onSendHookHandler = (request, reply, payload, done) => {
    if (request.payment === undefined || request.payment.settled) done(null, payload)
    else settleOrRedeem(request, reply, payload).then(sent => done(null, sent), done)
  }
  // Declared up front, so every request object has the same shape (no property added on the fly).
  fastify.decorateRequest('payment', undefined)

  // Only paid routes carry the gate and its hooks; free routes pay nothing for them.
  fastify.addHook('onRoute', (route) => {
    const serviceName = route.config?.paidService
    if (serviceName === undefined) return
    if (!isPaidServiceName(serviceName)) throw new Error(`route ${route.url}: unknown paid service "${String(serviceName)}"`)
    route.preHandler = [...hookList(route.preHandler), gate(serviceName)]
    route.onSend = [...hookList(route.onSend), deliveryHook]
  })

  if (solana.health.state === 'up') recipient.resolve().catch(() => {})
}, { name: 'payment', fastify: '5.x', dependencies: ['config', 'store', 'solana', 'x402'] })
