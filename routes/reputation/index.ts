import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'
import { DEFAULT_REPUTATION_WINDOW, Reputation, ReputationQuery } from '../../schemas/reputation.js'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'getReputation',
      tags: ['discovery'],
      summary: 'Trust signals from the audit log: success rate, transactions, failures by code, payers, revenue, latency per service',
      description: '`success_rate` = deliveries / transactions, where transactions are the requests whose payment passed every check ' +
        'and was claimed. Free; computed on each call from aggregates of the audit log.',
      querystring: ReputationQuery,
      response: { 200: documented(Reputation, 'the report for the window'), ...errorResponses('getReputation'), default: defaultResponse('getReputation') }
    }
  }, async (request) => fastify.reputation.report(request.query.window ?? DEFAULT_REPUTATION_WINDOW))
}

export default routes
