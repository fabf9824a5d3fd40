import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { entityTag, noneMatchHits } from '../../lib/http/entity-tag.js'
import { perPublicBase } from '../../lib/http/public-url.js'
import { createDiscoveryDocuments } from '../../lib/manifest/discovery-documents.js'
import { productTerms } from '../../lib/manifest/payment-terms.js'
import { X402WellKnown } from '../../schemas/discovery.js'
import { COMMON_HEADERS, defaultResponse, documented, errorResponses, HEADERS } from '../../schemas/responses.js'

// Distinct base URLs (Host headers, without PUBLIC_BASE_URL) whose documents are kept.
const BASES = 32
// Fixed for a process, and cheap to fetch again: caches may keep them five minutes, then revalidate with the ETag.
const CACHE_CONTROL = 'public, max-age=300'

interface Served { text: string, tag: string }

const notModified = { description: 'the copy named in If-None-Match is current', headers: { ...COMMON_HEADERS, ...HEADERS.entityTag, ...HEADERS.discoveryCaching }, type: 'null' }

/** A document that is the same text for every request to one base URL: made once per base, with its entity tag. */
function sendCached (request: FastifyRequest, reply: FastifyReply, served: Served, type: string) {
  reply.header('etag', served.tag).header('cache-control', CACHE_CONTROL)
  if (noneMatchHits(request.headers['if-none-match'], served.tag)) reply.code(304).send()
  else reply.type(type).send(served.text)
}

/**
 * Discovery documents for machines that do not read OpenAPI: /.well-known/x402 (x402 crawlers)
 * and /llms.txt (language models). Free, cached, with the fixed headers.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify
  const documents = createDiscoveryDocuments({ name: config.AGENT_NAME, description: config.AGENT_DESCRIPTION, products: productTerms(config, fastify.catalogue), mpp: config.MPP_CHARGE })
  const wellKnown = perPublicBase(config.PUBLIC_BASE_URL, BASES, (base): { served?: Served, base: string } => ({ base }))
  const llms = perPublicBase(config.PUBLIC_BASE_URL, BASES, (base): Served => {
    const text = documents.llmsTxt(base)
    return { text, tag: entityTag(text) }
  })

  fastify.get('/.well-known/x402', {
    schema: {
      operationId: 'getX402Discovery',
      tags: ['discovery'],
      summary: 'x402 discovery: one example URL per paid product, and how to pay',
      response: {
        200: documented(X402WellKnown, 'the paid resources', { ...HEADERS.entityTag, ...HEADERS.discoveryCaching }),
        304: notModified,
        ...errorResponses('getX402Discovery'),
        default: defaultResponse('getX402Discovery')
      }
    }
  }, (request, reply) => {
    const copy = wellKnown(request)
    if (copy.served === undefined) {
      const text = String(reply.serialize(documents.wellKnown(copy.base)))
      copy.served = { text, tag: entityTag(text) }
    }
    sendCached(request, reply, copy.served, 'application/json; charset=utf-8')
  })

  fastify.get('/llms.txt', {
    schema: {
      // A text for language models, not an API operation (generated clients would parse it as
      // JSON): out of the OpenAPI document, which links it as x-agentcash-guidance.llmsTxtUrl.
      hide: true,
      operationId: 'getLlmsTxt',
      tags: ['discovery'],
      summary: 'The service explained for language models (llmstxt.org): products, prices, how to pay, links',
      response: {
        200: { description: 'the llms.txt document (Markdown)', headers: { ...COMMON_HEADERS, ...HEADERS.entityTag, ...HEADERS.discoveryCaching }, content: { 'text/plain': { schema: { type: 'string' } } } },
        304: notModified
      }
    }
  }, (request, reply) => {
    sendCached(request, reply, llms(request), 'text/plain; charset=utf-8')
  })
}

export default routes
