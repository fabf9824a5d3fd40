import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'
import { DEFAULT_REPUTATION_WINDOW, Reputation, ReputationQuery } from '../../schemas/reputation.js'
import { REPUTATION_SIGNATURE_HEADER, signedJson } from './signed-document.js'
import deliveries from './deliveries.js'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'getReputation',
      tags: ['discovery'],
      summary: 'Trust signals from the audit log: success rate, transactions, failures by code, payers, revenue, latency per service',
      description: '`success_rate` = deliveries / transactions, where transactions are the requests whose payment passed every check ' +
        'and was claimed. Free; computed on each call from aggregates of the audit log. The evidence is /reputation/deliveries; the body is signed ' +
        `with the receipt key (${REPUTATION_SIGNATURE_HEADER}: a compact JWS whose payload is the body's bytes; key in /.well-known/did.json).`,
      querystring: ReputationQuery,
      response: { 200: documented(Reputation, 'the report for the window', { [REPUTATION_SIGNATURE_HEADER]: { type: 'string', description: 'compact EdDSA JWS of the body (its payload is the body), kid in /.well-known/did.json', 'x-required': true } }), ...errorResponses('getReputation'), default: defaultResponse('getReputation') }
    }
  }, async (request, reply) => await signedJson(reply, fastify.receipts.signer, await fastify.reputation.report(request.query.window ?? DEFAULT_REPUTATION_WINDOW)))

  await fastify.register(deliveries)
}

export default routes
