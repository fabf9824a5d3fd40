import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { entityTag, noneMatchHits } from '../../lib/http/entity-tag.js'
import { perPublicBase } from '../../lib/http/public-url.js'
import { setFixedHeaders } from '../../plugins/app/response-headers.js'
import { COMMON_HEADERS, defaultResponse, documented, errorResponses, HEADERS } from '../../schemas/responses.js'
import { Manifest } from '../../schemas/manifest.js'

// Distinct base URLs (Host headers, without PUBLIC_BASE_URL) whose manifest text is kept.
const MANIFEST_BASES = 32

/** The manifest of one base URL, serialised by the route's own serializer on its first request. */
interface ManifestCopy {
  base: string
  served?: { text: string, tag: string }
}

// Text, not bytes: Node writes a text body in one piece with the headers, a Buffer as a second
// write (measured slower here, where the 402's joined text gained from becoming bytes).
const served = (text: string) => ({ text, tag: entityTag(text) })

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const config = fastify.config
  const manifestAt = fastify.services.manifest
  // The manifest is the same bytes for every request to one base URL (all of them once
  // PUBLIC_BASE_URL is set): serialised once per base with the route's own serializer, with its
  // entity tag, so a request costs a lookup and a client holding the current copy gets a 304.
  const copies = perPublicBase(config.PUBLIC_BASE_URL, MANIFEST_BASES, (base): ManifestCopy => ({ base }))

  fastify.get('/agent.json', {
    config: { setsFixedHeaders: true },
    schema: {
      operationId: 'getManifest',
      tags: ['discovery'],
      summary: 'The merchant manifest: who we are, what we sell, at what price, paid to whom',
      description: 'Carries an ETag; a request whose If-None-Match names it is answered 304 without a body.',
      response: {
        200: documented(Manifest, 'the manifest', { ...HEADERS.entityTag, ...HEADERS.manifestCaching }),
        304: { description: 'the copy named in If-None-Match is current', headers: { ...COMMON_HEADERS, ...HEADERS.entityTag, ...HEADERS.manifestCaching }, type: 'null' },
        ...errorResponses('getManifest'),
        default: defaultResponse('getManifest')
      }
    }
  }, (request, reply) => {
    setFixedHeaders(request, reply)
    const copy = copies(request)
    const { text, tag } = copy.served ??= served(String(reply.serialize(manifestAt(copy.base))))
    reply.header('etag', tag).header('cache-control', 'no-cache')
    if (noneMatchHits(request.headers['if-none-match'], tag)) reply.code(304).send()
    else reply.type('application/json; charset=utf-8').send(text)
  })
}

export default routes
