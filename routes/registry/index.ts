import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { MAX_AGENT_NAME_LENGTH } from '../../lib/registry/registration-memo.js'
import { SolanaAddress } from '../../schemas/common.js'
import { ErrorResponse } from '../../schemas/error.js'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'
import { RegistryListing, type RegistryListingBody } from '../../schemas/registry.js'

const RegistryQuery = Type.Object({
  wallet: Type.Optional(Type.String({ pattern: SolanaAddress.pattern, description: 'only registrations paid by this wallet' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AGENT_NAME_LENGTH, description: 'only agents with this exact name (ASCII case ignored)' }))
})

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'listRegistry',
      tags: ['registry'],
      summary: 'Agents registered on the chain through the registry address, newest first',
      querystring: RegistryQuery,
      response: { 200: documented(RegistryListing, 'the registered agents'), ...errorResponses('listRegistry'), default: defaultResponse(ErrorResponse) }
    }
  }, async (request, reply) => {
    // Pre-serialized JSON text of the RegistryListing model: Fastify sends a string as it is.
    const json = await fastify.registry.listJson(request.query) as unknown as RegistryListingBody
    return reply.type('application/json; charset=utf-8').send(json)
  })
}

export default routes
