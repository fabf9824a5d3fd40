import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { createManifestBuilder } from '../../lib/manifest/merchant-manifest.js'
import { publicBaseUrl } from '../../lib/http/public-url.js'
import { ErrorResponse } from '../../schemas/error.js'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'
import { Manifest, type ManifestBody } from '../../schemas/manifest.js'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const config = fastify.config
  const manifest = createManifestBuilder(config)

  fastify.get('/agent.json', {
    schema: {
      operationId: 'getManifest',
      tags: ['discovery'],
      summary: 'The merchant manifest: who we are, what we sell, at what price, paid to whom',
      response: { 200: documented(Manifest, 'the manifest'), ...errorResponses('getManifest'), default: defaultResponse(ErrorResponse) }
    }
  }, async (request): Promise<ManifestBody> => manifest(publicBaseUrl(request, config.PUBLIC_BASE_URL)))
}

export default routes
