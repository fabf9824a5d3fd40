import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { createDeliveriesPage } from '../../lib/reputation/deliveries-page.js'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'
import { DeliveriesQuery, ReputationDeliveries } from '../../schemas/reputation.js'
import { REPUTATION_SIGNATURE_HEADER, signedJson } from './signed-document.js'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const page = createDeliveriesPage(fastify.store.deliveries, fastify.x402.network.v2)
  fastify.get('/deliveries', {
    schema: {
      operationId: 'listReputationDeliveries',
      tags: ['discovery'],
      summary: 'The evidence behind /reputation: every verified payment (transaction, network, price, resource hash, outcome, time), page by page',
      description: 'Recount /reputation from it: deliveries = entries with outcome DELIVERED, transactions = all entries, revenue = the sum of the DELIVERED prices. ' +
        'Check each DELIVERED signature on chain: it landed and moved at least the price to payTo. The body is signed with the receipt key ' +
        `(${REPUTATION_SIGNATURE_HEADER}: a compact JWS whose payload is the body's bytes; key in /.well-known/did.json).`,
      querystring: DeliveriesQuery,
      response: {
        200: documented(ReputationDeliveries, 'one page, oldest first', { [REPUTATION_SIGNATURE_HEADER]: { type: 'string', description: 'compact EdDSA JWS of the body (its payload is the body), kid in /.well-known/did.json', 'x-required': true } }),
        ...errorResponses('listReputationDeliveries'),
        default: defaultResponse('listReputationDeliveries')
      }
    }
  }, async (request, reply) => {
    const body = await page(request.query.cursor, request.query.limit ?? 100)
    return await signedJson(reply, fastify.receipts.signer, body)
  })
}

export default routes
