import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ErrorResponse } from '../../schemas/error.js'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'
import { Reputation, ReputationWindow, type ReputationWindowName } from '../../schemas/reputation.js'

const DEFAULT_WINDOW: ReputationWindowName = 'all'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'getReputation',
      tags: ['discovery'],
      summary: 'Trust signals from the audit log: success rate, transactions, failures by code, payers, revenue, latency per service',
      description: '`success_rate` = deliveries / transactions, where transactions are the requests whose payment passed every check ' +
        'and was claimed. Free; computed on each call from aggregates of the audit log.',
      querystring: Type.Object({
        window: Type.Optional(Type.Union(ReputationWindow.anyOf, { default: DEFAULT_WINDOW, description: ReputationWindow.description }))
      }),
      response: { 200: documented(Reputation, 'the report for the window'), ...errorResponses('getReputation'), default: defaultResponse(ErrorResponse) }
    }
  }, async (request) => fastify.reputation.report(request.query.window ?? DEFAULT_WINDOW))
}

export default routes
