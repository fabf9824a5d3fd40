import cors from '@fastify/cors'
import fp from 'fastify-plugin'
import { PAYMENT_HEADERS } from '../app/payment/headers.js'

/** Open for GET so browser agents can buy; the payment headers are allowed in and the receipt exposed. */
export default fp(async (fastify) => {
  await fastify.register(cors, {
    origin: '*',
    methods: ['GET', 'HEAD', 'OPTIONS'],
    allowedHeaders: ['content-type', 'x-request-id', PAYMENT_HEADERS.signature, PAYMENT_HEADERS.wallet],
    exposedHeaders: ['x-request-id', 'retry-after', PAYMENT_HEADERS.receipt],
    maxAge: 600
  })
}, { name: 'cors' })
