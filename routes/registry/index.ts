import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'
import { RegistryListing, RegistryQuery, type RegistryListingBody } from '../../schemas/registry.js'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'listRegistry',
      tags: ['registry'],
      summary: 'Agents registered on the chain through the registry address, newest first',
      querystring: RegistryQuery,
      response: { 200: documented(RegistryListing, 'the registered agents'), ...errorResponses('listRegistry'), default: defaultResponse('listRegistry') }
    }
  }, async (request, reply) => {
    // Pre-serialized JSON of the RegistryListing model (UTF-8 bytes): Fastify sends a Buffer as it is.
    const json = await fastify.registry.listJson(request.query) as unknown as RegistryListingBody
    return reply.type('application/json; charset=utf-8').send(json)
  })
}

export default routes
