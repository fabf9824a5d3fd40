import type { FastifyReply, FastifyRequest, onRequestAbortAsyncHookHandler, onResponseHookHandler, onSendHookHandler, preHandlerHookHandler } from 'fastify'
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
import { encodeReceipt, paymentRequirement, paymentRequiredRejection, type MerchantTerms } from '../../lib/payment/requirements.js'
import { createChallengeBodies, type ChallengeBodies } from '../../lib/payment/challenge.js'
import { publicBaseUrl, requestPath } from '../../lib/http/public-url.js'
import { NETWORKS } from '../../lib/solana/networks.js'

interface PaymentInFlight extends ClaimedPayment {
  /** Set once the claim was redeemed or released; later hooks leave it alone. */
  settled: boolean
  outcome: string
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
  const x402Network = NETWORKS[config.network].x402Network
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
  // text is made once (lib/payment/challenge.ts), and again only when the recipient token account
  // becomes known.
  const challenges = new Map<PaidServiceName, { recipientTokenAccount: string | undefined, bodies: ChallengeBodies }>()

  function challengeBodies (serviceName: PaidServiceName): ChallengeBodies {
    const recipientTokenAccount = recipient.get()
    let cached = challenges.get(serviceName)
    if (cached === undefined || cached.recipientTokenAccount !== recipientTokenAccount) {
      const terms: MerchantTerms = {
        x402Network,
        payTo: config.paymentAddress,
        mint: config.paymentMint,
        symbol: config.PAYMENT_TOKEN_SYMBOL,
        label: config.AGENT_NAME,
        maxAgeSeconds: config.PAYMENT_MAX_AGE_SECONDS,
        recipientTokenAccount,
        walletSignatureRequired: config.REQUIRE_WALLET_SIGNATURE
      }
      cached = { recipientTokenAccount, bodies: createChallengeBodies(paymentRequirement(terms, PAID_SERVICES[serviceName], ''), paymentRequiredRejection(PAID_SERVICES[serviceName])) }
      challenges.set(serviceName, cached)
    }
    return cached.bodies
  }

  function resourceUrl (request: FastifyRequest): string {
    return `${publicBaseUrl(request, config.PUBLIC_BASE_URL)}${requestPath(request.url)}`
  }

  function sendChallenge (reply: FastifyReply, statusCode: number, body: string) {
    return reply.code(statusCode).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body)
  }

  /** Verifies a proof that decoded and claims it; true when it answered (a challenge) itself. */
  async function checkProof (request: FastifyRequest, reply: FastifyReply, serviceName: PaidServiceName, read: ReturnType<typeof readPaymentProof>): Promise<boolean> {
    const refuse = (rejection: PaymentRejection, statusCode = 402) => {
      sendChallenge(reply, statusCode, challengeBodies(serviceName).refused(rejection, statusCode, request.id, resourceUrl(request)))
      return true
    }
    // Refusals before a claim name no payment the merchant can verify: counted, not stored.
    if ('rejection' in read) {
      store.audit.countUnpaid(serviceName, read.rejection.code)
      failureLimit.record(request.ip, read.rejection.code)
      return refuse(read.rejection)
    }
    if (!('proof' in read)) throw new Error('checkProof called without a proof')
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
      request.payment = { ...claimed, settled: false, outcome: 'PENDING' }
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

  // Callback style: a request without a proof (the flood unpaid traffic is) is answered
  // synchronously, with no promise; only a proof goes through the asynchronous check.
  function gate (serviceName: PaidServiceName): preHandlerHookHandler {
    return function paymentGate (request, reply, done) {
      const read = readPaymentProof(request.headers)
      // HEAD never verifies, claims or spends anything: it answers like an unpaid GET.
      if ('absent' in read || request.method === 'HEAD') {
        store.audit.countUnpaid(serviceName, 'PAYMENT_REQUIRED')
        sendChallenge(reply, 402, challengeBodies(serviceName).paymentRequired(request.id, resourceUrl(request)))
        return
      }
      checkProof(request, reply, serviceName, read).then(answered => { if (!answered) done() }, done)
    }
  }

  function release (payment: PaymentInFlight, outcome: string) {
    payment.settled = true
    payment.outcome = outcome
    store.claims.release(payment.signature, payment.claimId)
  }

  // Deliver and redeem together: a 2xx goes out only if this request still holds the claim.
  async function redeemOnSend (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const payment = request.payment
    if (payment === undefined || payment.settled) return payload
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
    if (request.payment !== undefined && !request.payment.settled) release(request.payment, 'CLIENT_ABORTED')
  }

  async function auditOnResponse (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const payment = request.payment
    if (payment === undefined) return
    if (!payment.settled) release(payment, 'HANDLER_FAILED')
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
      latencyMs: reply.elapsedTime
    })
  }

  // Callback style: a request that holds no payment (every 402) ends its hooks synchronously,
  // without a promise each; one that does takes the asynchronous path above.
  const redeemHook: onSendHookHandler = (request, reply, payload, done) => {
    if (request.payment === undefined || request.payment.settled) done(null, payload)
    else redeemOnSend(request, reply, payload).then(sent => done(null, sent), done)
  }
  const auditHook: onResponseHookHandler = (request, reply, done) => {
    if (request.payment === undefined) done()
    else auditOnResponse(request, reply).then(() => done(), done)
  }

  // Declared up front, so every request object has the same shape (no property added on the fly).
  fastify.decorateRequest('payment', undefined)

  // Only paid routes carry the gate and its hooks; free routes pay nothing for them.
  fastify.addHook('onRoute', (route) => {
    const serviceName = route.config?.paidService
    if (serviceName === undefined) return
    if (!isPaidServiceName(serviceName)) throw new Error(`route ${route.url}: unknown paid service "${String(serviceName)}"`)
    route.preHandler = [...asArray(route.preHandler), gate(serviceName)]
    route.onSend = [...asArray(route.onSend), redeemHook]
    route.onRequestAbort = [...asArray(route.onRequestAbort), releaseOnAbort]
    route.onResponse = [...asArray(route.onResponse), auditHook]
  })

  if (solana.health.state === 'up') recipient.resolve().catch(() => {})
}, { name: 'payment', fastify: '5.x', dependencies: ['config', 'store', 'solana'] })
