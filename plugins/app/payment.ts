import type { onSendHookHandler, preHandlerHookHandler } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'
import fp from 'fastify-plugin'
import { createHttpChallenges } from '../../lib/doors/http-challenges.js'
import { createHttpDoor } from '../../lib/doors/http-door.js'
import { httpPaymentMethods } from '../../lib/doors/http-methods.js'
import { createDeliveryCore, type PaidDelivery } from '../../lib/delivery/paid-delivery.js'
import { createRedelivery } from '../../lib/contract/redelivery.js'
import { hookList } from '../../lib/http/route-hooks.js'
import type { PaidServiceName } from '../../lib/payment/catalog.js'
import { createPaymentVerifier } from '../../lib/payment/payment-verifier.js'
import { createProofFailureLimit } from '../../lib/payment/proof-failure-limit.js'
import { createRecipientAccount } from '../../lib/payment/recipient-account.js'
import { createMppCharge, type MppCharge } from './mpp-charge.js'
import { FastifyExchange } from './http-exchange.js'
import { setFixedHeaders } from './response-headers.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Makes the route paid: the name of its product in the catalogue. */
    paidService?: PaidServiceName
  }
  interface FastifyRequest {
    /** The paid delivery this request holds, once its payment was verified and claimed. */
    payment?: PaidDelivery
  }
  interface FastifyInstance {
    /** The paid-delivery core every door drives (HTTP here, MCP and A2A in their plugins). */
    delivery: ReturnType<typeof createDeliveryCore> & { checkFailureLimit: (client: string) => () => void }
    /** True when a request's headers name a way to pay (the HTTP door's list of them). */
    carriesPayment: (headers: IncomingHttpHeaders) => boolean
    /** MPP's Solana charge (its challenges and its credentials' method), or undefined when MPP_CHARGE=false. */
    mpp: MppCharge | undefined
  }
}

/**
 * Paid routes: a route with `config.paidService` gets the HTTP door of the paid-delivery core (a
 * preHandler after validation, so a malformed parameter is a 400 and nobody is asked to pay for
 * it, and an onSend hook that settles before a byte leaves). The core and the failure limit are
 * shared with the MCP door.
 */
export default fp(async (fastify) => {
  const { config, store, solana, x402 } = fastify
  const recipient = createRecipientAccount(solana.rpc, config.paymentMint, config.paymentAddress)
  const failureLimit = createProofFailureLimit({ limit: config.PROOF_FAILURE_LIMIT, windowMs: config.RATE_LIMIT_WINDOW_MS, shared: fastify.limitCounts })
  const checkFailureLimit = (client: string) => failureLimit.check(client)

  const proofs = createPaymentVerifier({
    rpc: solana.rpc,
    claims: store.claims,
    // Never judge a payment against a node that is not known to serve the configured cluster.
    ensureNetwork: async () => await solana.health.ensureVerified(error => fastify.log.fatal(error.message)),
    payTo: config.paymentAddress,
    mint: config.paymentMint,
    commitment: config.PAYMENT_COMMITMENT,
    maxAgeSeconds: config.PAYMENT_MAX_AGE_SECONDS,
    leaseMs: config.PAYMENT_LEASE_SECONDS * 1000,
    notFoundWaitMs: config.PAYMENT_NOT_FOUND_WAIT_MS,
    x402FeePayer: x402.feePayer.address,
    receiptNetwork: config.x402Network,
    receipts: { ...fastify.receipts, network: fastify.x402.network.v2 },
    redeliveryOf: createRedelivery({ claims: store.claims, mode: config.REDELIVERY, unknownForMs: config.PAYMENT_LEASE_SECONDS * 1000 })
  })

  const core = createDeliveryCore({
    claims: store.claims,
    audit: store.audit,
    leaseMs: config.PAYMENT_LEASE_SECONDS * 1000,
    retentionMs: config.DELIVERY_RETENTION_SECONDS * 1000,
    recordFailure: (client, code) => failureLimit.record(client, code),
    countHandlerFailure: client => failureLimit.count(client),
    countUnpaid: (service, code) => store.audit.countUnpaid(service, code),
    log: fastify.log
  })
  fastify.decorate('delivery', { ...core, checkFailureLimit })

  const mpp = config.MPP_CHARGE ? await createMppCharge(fastify, proofs, recipient) : undefined
  fastify.decorate('mpp', mpp)

  const challenges = createHttpChallenges({
    terms: {
      x402Network: config.x402Network,
      payTo: config.paymentAddress,
      mint: config.paymentMint,
      symbol: config.PAYMENT_TOKEN_SYMBOL,
      label: config.AGENT_NAME,
      maxAgeSeconds: config.PAYMENT_MAX_AGE_SECONDS,
      walletSignatureRequired: config.REQUIRE_WALLET_SIGNATURE,
      redelivery: config.REDELIVERY,
      feePayer: x402.feePayer.address
    },
    recipientTokenAccount: () => recipient.get(),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    catalogue: fastify.catalogue,
    paymentRequired: x402.paymentRequired,
    mppChallenges: mpp?.challenges.header
  })

  const door = createHttpDoor({
    core,
    methods: httpPaymentMethods({ proofs, x402, catalogue: fastify.catalogue, requireWalletSignature: config.REQUIRE_WALLET_SIGNATURE, mpp: mpp?.payments }),
    challenges,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    checkFailureLimit,
    countUnpaid: service => store.audit.countUnpaid(service, 'PAYMENT_REQUIRED'),
    paywall: fastify.paywall?.door
  })

  // Callback style: a request without any payment header is answered synchronously, with no promise.
  const gate = (service: PaidServiceName): preHandlerHookHandler => function paymentGate (request, reply, done) {
    setFixedHeaders(request, reply)
    const admitted = door.gate(new FastifyExchange(request, reply), service)
    if (admitted !== false) admitted.then(held => { if (held) done() }, done)
  }
  const deliveryHook: onSendHookHandler = (request, reply, payload, done) => {
    const delivery = request.payment
    if (delivery === undefined || delivery.state !== 'held') done(null, payload)
    else door.deliver(new FastifyExchange(request, reply), payload, delivery).then(sent => done(null, sent), done)
  }

  fastify.decorate('carriesPayment', door.carriesPayment)

  // Declared up front, so every request object has the same shape (no property added on the fly).
  fastify.decorateRequest('payment', undefined)

  // Only paid routes carry the gate and its hooks; free routes pay nothing for them.
  fastify.addHook('onRoute', (route) => {
    const service = route.config?.paidService
    if (service === undefined) return
    if (!fastify.catalogue.has(service)) throw new Error(`route ${route.url}: unknown paid service "${String(service)}"`)
    route.preHandler = [...hookList(route.preHandler), gate(service)]
    route.onSend = [...hookList(route.onSend), deliveryHook]
  })

  if (solana.health.state === 'up') recipient.resolve().catch(() => {})
}, { name: 'payment', fastify: '5.x', dependencies: ['config', 'store', 'limit-counts', 'solana', 'x402', 'paywall', 'receipts'] })
