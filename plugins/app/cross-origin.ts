import fp from 'fastify-plugin'
import { PAYMENT_HEADERS } from '../../lib/payment/headers.js'
import { X402_HEADERS } from '../../lib/x402/payment-headers.js'

/**
 * CORS open to every origin for GET, so browser agents can buy: the payment headers may be
 * sent and the receipt read (MPP's challenges and `Authorization: Payment` too). With origin "*" nothing depends on the request, so the headers
 * are constants (added by response-headers.ts) and preflights get a constant answer: this
 * replaced @fastify/cors, whose per-request option handling cost ~10% of a 402 challenge.
 */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': ['x-request-id', 'retry-after', PAYMENT_HEADERS.receipt, X402_HEADERS.paymentRequired, X402_HEADERS.responseV2,
    'www-authenticate', 'payment-receipt'].join(', ')
} as const

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': ['content-type', 'x-request-id', PAYMENT_HEADERS.signature, PAYMENT_HEADERS.wallet, PAYMENT_HEADERS.walletSignature,
    X402_HEADERS.paymentV1, X402_HEADERS.paymentV2, 'authorization', 'access-control-expose-headers'].join(', '),
  'access-control-max-age': '600'
} as const

/** Answers every preflight (OPTIONS) request. */
export default fp(async (fastify) => {
  fastify.options('*', { schema: { hide: true } }, async (_request, reply) => reply.code(204).headers(PREFLIGHT_HEADERS).send())
}, { name: 'cross-origin', fastify: '5.x' })
