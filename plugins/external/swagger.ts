import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { SERVICE_VERSION } from '../../project.js'
import type { OpenAPIV3_1 as OpenApi } from 'openapi-types'
import { entityTag, noneMatchHits } from '../../lib/http/entity-tag.js'
import { finishDocument } from '../../lib/manifest/openapi-discovery.js'
import { productTerms } from '../../lib/manifest/payment-terms.js'
import { receiptBaseUrl } from '../../lib/receipts/did-document.js'
import { refundExtension } from '../../lib/refunds/refund-extension.js'

// The one HTML document the service serves: the policies that matter to a page, on top of the API set.
const DOCS_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'referrer-policy': 'no-referrer'
}

/**
 * OpenAPI 3 document generated from the route schemas. Components are named after each
 * model's `$id` (not swagger's default `def-N`) so generated clients get readable types.
 */
export default fp(async (fastify) => {
  const { PUBLIC_BASE_URL } = fastify.config
  const base = PUBLIC_BASE_URL?.replace(/\/+$/, '')
  const refund = refundExtension(fastify.config, receiptBaseUrl(PUBLIC_BASE_URL, fastify.config.PORT))
  const discovery = { products: productTerms(fastify.config, fastify.catalogue), llmsTxtUrl: `${base ?? ''}/llms.txt`, mpp: fastify.config.MPP_CHARGE, ...(refund === undefined ? {} : { refund }) }
  await fastify.register(swagger, {
    openapi: {
      // 3.1: a null branch is `{ type: 'null' }`, which every generator renders (3.0's nullable enum broke orval).
      openapi: '3.1.0',
      info: {
        title: 'token-merchant',
        version: SERVICE_VERSION,
        description: 'Solana token data sold per request over x402. Paid routes answer 402 with payment requirements; ' +
          'pay on-chain, then repeat the call with the x-payment-signature and x-payment-wallet headers.',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' }
      },
      // Where clients reach us: the public base URL when configured, otherwise relative to the
      // document itself (never the listen address, which behind a proxy is not reachable).
      servers: [{ url: base ?? '/' }],
      // No authentication anywhere (every operation says so too, as crawlers want): payment is
      // declared per operation with x-payment-info and the payment headers are parameters, so a
      // generated client sends the one payment form it is given.
      security: [],
      tags: [
        { name: 'discovery', description: 'Free: manifest and reputation' },
        { name: 'registry', description: 'Free: agents registered on chain' },
        { name: 'paid', description: 'Paid per request through x402' },
        { name: 'ops', description: 'Health checks for operators' },
        { name: 'mcp', description: 'The products and the free documents as MCP tools' },
        { name: 'browser', description: 'The payment page: a browser wallet pays through the merchant, which prepares the transaction' }
      ]
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`)
    },
    // A route at its folder's root answers `/registry` and `/registry/`; the document names the
    // canonical path, the one the manifest links.
    transform: ({ schema, url }) => ({ schema, url: url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url }),
    transformObject: (documentObject) => finishDocument((documentObject as { openapiObject: OpenApi.Document }).openapiObject, discovery)
  })
  // The docs page runs its own scripts and styles only; nothing else may load or frame it, and it sends no referrer.
  await fastify.register(swaggerUi, {
    routePrefix: '/docs',
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.headers(DOCS_HEADERS)
        done()
      }
    }
  })
  // 189 KB, the same bytes for the life of the process: serialized once (as UTF-8 bytes, which the
  // socket takes as they are; a string is encoded again on every write), with an entity tag so that a
  // generator or crawler polling it gets a 304; caches may keep it five minutes, as the discovery documents.
  let served: { body: Buffer, tag: string } | undefined
  fastify.get('/openapi.json', { schema: { hide: true } }, async (request, reply) => {
    if (served === undefined) {
      const text = JSON.stringify(fastify.swagger())
      served = { body: Buffer.from(text), tag: entityTag(text) }
    }
    reply.header('etag', served.tag).header('cache-control', 'public, max-age=300')
    if (noneMatchHits(request.headers['if-none-match'], served.tag)) return await reply.code(304).send()
    return await reply.type('application/json; charset=utf-8').send(served.body)
  })
}, { name: 'swagger', fastify: '5.x' })
