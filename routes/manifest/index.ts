import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { SERVICE_VERSION } from '../../project.js'
import { formatTokenAmount, PAID_SERVICES, PAYMENT_TOKEN_DECIMALS } from '../../lib/payment/catalog.js'
import { publicBaseUrl } from '../../lib/http/public-url.js'
import { ErrorResponse } from '../../schemas/error.js'
import { defaultResponse, documented, errorResponses } from '../../schemas/responses.js'
import { Manifest, type ManifestBody } from '../../schemas/manifest.js'

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

  fastify.get('/agent.json', {
    schema: {
      operationId: 'getManifest',
      tags: ['discovery'],
      summary: 'The merchant manifest: who we are, what we sell, at what price, paid to whom',
      response: { 200: documented(Manifest, 'the manifest'), ...errorResponses('getManifest'), default: defaultResponse(ErrorResponse) }
    }
  }, async (request): Promise<ManifestBody> => {
    const base = publicBaseUrl(request, config.PUBLIC_BASE_URL)
    return {
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
    }
  })
}

export default routes
