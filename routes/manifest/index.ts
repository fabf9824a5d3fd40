import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { SERVICE_VERSION } from '../../project.js'
import { formatTokenAmount, PAID_SERVICES, PAYMENT_TOKEN_DECIMALS } from '../../lib/payment/catalog.js'
import { boundedCache } from '../../lib/http/bounded-memo.js'
import { entityTag, noneMatchHits } from '../../lib/http/entity-tag.js'
import { publicBaseUrl } from '../../lib/http/public-url.js'
import { ErrorResponse } from '../../schemas/error.js'
import { defaultResponse, documented, errorResponses, HEADERS } from '../../schemas/responses.js'
import { Manifest, type ManifestBody } from '../../schemas/manifest.js'

// Distinct base URLs (Host headers, without PUBLIC_BASE_URL) whose manifest text is kept.
const MANIFEST_BASES = 32

const withTag = (text: string) => ({ text, tag: entityTag(text) })

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const config = fastify.config
  const services = Object.entries(PAID_SERVICES).map(([name, service]) => ({
    name,
    description: service.description,
    endpoint: service.path,
    method: service.method,
    price: Number(service.price),
    price_display: formatTokenAmount(service.price),
    payment_token: config.PAYMENT_TOKEN_SYMBOL,
    payment_network: config.x402Network,
    data_network: config.dataNetwork
  }))

  // The manifest is the same bytes for every request to one base URL (all of them once
  // PUBLIC_BASE_URL is set): serialised once per base with the route's own serializer, with its
  // entity tag, so a request costs a lookup and a client holding the current copy gets a 304.
  const manifestAt = (base: string): ManifestBody => ({
    name: config.AGENT_NAME,
    description: config.AGENT_DESCRIPTION,
    version: SERVICE_VERSION,
    services,
    reputation_url: `${base}/reputation`,
    payment_address: config.paymentAddress,
    payment_mint: config.paymentMint,
    payment_decimals: PAYMENT_TOKEN_DECIMALS,
    network: config.network,
    registry_url: `${base}/registry`,
    openapi_url: `${base}/openapi.json`,
    proof_wallet_signature: config.REQUIRE_WALLET_SIGNATURE ? 'required' : 'optional'
  })
  const manifests = boundedCache<{ text: string, tag: string }>(MANIFEST_BASES)

  fastify.get('/agent.json', {
    schema: {
      operationId: 'getManifest',
      tags: ['discovery'],
      summary: 'The merchant manifest: who we are, what we sell, at what price, paid to whom',
      description: 'Carries an ETag; a request whose If-None-Match names it is answered 304 without a body.',
      response: {
        200: documented(Manifest, 'the manifest', HEADERS.entityTag),
        304: { description: 'the copy named in If-None-Match is current', headers: HEADERS.entityTag, type: 'null' },
        ...errorResponses('getManifest'),
        default: defaultResponse(ErrorResponse)
      }
    }
  }, (request, reply) => {
    const base = publicBaseUrl(request, config.PUBLIC_BASE_URL)
    const { text, tag } = manifests.get(base) ?? manifests.set(base, withTag(String(reply.serialize(manifestAt(base)))))
    reply.header('etag', tag).header('cache-control', 'no-cache')
    if (noneMatchHits(request.headers['if-none-match'], tag)) reply.code(304).send()
    else reply.type('application/json; charset=utf-8').send(text)
  })
}

export default routes
