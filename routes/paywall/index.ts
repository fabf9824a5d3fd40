import type { FastifyPluginAsync } from 'fastify'
import { noneMatchHits } from '../../lib/http/entity-tag.js'

// A file's name carries a digest of its content: a new build is a new URL, so it is cached for good.
const IMMUTABLE = 'public, max-age=31536000, immutable'

/** The payment page's bundled script and style (dist/paywall/, built by `npm run build`), with ETags and a long cache. */
const routes: FastifyPluginAsync = async (fastify) => {
  const assets = fastify.paywall?.assets
  if (assets === undefined) return
  for (const asset of assets.byUrl.values()) {
    fastify.get(asset.url.slice('/paywall'.length), { schema: { hide: true } }, async (request, reply) => {
      reply.header('etag', asset.etag).header('cache-control', IMMUTABLE).header('content-type', asset.contentType)
      if (noneMatchHits(request.headers['if-none-match'], asset.etag)) return await reply.code(304).send()
      return await reply.send(asset.body)
    })
  }
}

export default routes
