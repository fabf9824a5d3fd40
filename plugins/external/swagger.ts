import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { SERVICE_VERSION } from '../../project.js'
import type { OpenAPIV3 } from 'openapi-types'
import { PAYMENT_SECURITY_SCHEMES, PROOF_HEADERS } from '../../schemas/payment.js'

// The one HTML document the service serves: the policies that matter to a page, on top of the API set.
const DOCS_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'referrer-policy': 'no-referrer'
}

function withProofHeaderParameters (document: OpenAPIV3.Document): OpenAPIV3.Document {
  const parameters = Object.entries(PROOF_HEADERS.properties).map(([name, schema]): OpenAPIV3.ParameterObject =>
    ({ in: 'header', name, required: false, description: schema.description, schema: { type: 'string' } }))
  for (const path of Object.values(document.paths)) {
    const operation = path?.get
    if (operation?.security?.some(requirement => 'paymentSignature' in requirement) === true) {
      const present = new Set((operation.parameters ?? []).map(parameter => 'name' in parameter ? parameter.name : ''))
      operation.parameters = [...operation.parameters ?? [], ...parameters.filter(parameter => !present.has(parameter.name))]
    }
  }
  return document
}

/**
 * OpenAPI 3 document generated from the route schemas. Components are named after each
 * model's `$id` (not swagger's default `def-N`) so generated clients get readable types.
 */
export default fp(async (fastify) => {
  const { PUBLIC_BASE_URL } = fastify.config
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'token-merchant',
        version: SERVICE_VERSION,
        description: 'Solana token data sold per request over x402. Paid routes answer 402 with payment requirements; ' +
          'pay on-chain, then repeat the call with the x-payment-signature and x-payment-wallet headers.',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' }
      },
      // Where clients reach us: the public base URL when configured, otherwise relative to the
      // document itself (never the listen address, which behind a proxy is not reachable).
      servers: [{ url: PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? '/' }],
      // Free unless an operation says otherwise; paid operations name the proof headers.
      security: [],
      components: { securitySchemes: PAYMENT_SECURITY_SCHEMES },
      tags: [
        { name: 'discovery', description: 'Free: manifest and reputation' },
        { name: 'registry', description: 'Free: agents registered on chain' },
        { name: 'paid', description: 'Paid per request through x402' },
        { name: 'ops', description: 'Health checks for operators' }
      ]
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`)
    },
    // A route at its folder's root answers `/registry` and `/registry/`; the document names the
    // canonical path, the one the manifest links.
    transform: ({ schema, url }) => ({ schema, url: url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url }),
    // @fastify/swagger drops header parameters that a security scheme names; paid operations list
    // the proof headers as parameters too, so generated clients take them as typed header params.
    transformObject: (documentObject) => withProofHeaderParameters((documentObject as { openapiObject: OpenAPIV3.Document }).openapiObject)
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
  fastify.get('/openapi.json', { schema: { hide: true } }, async () => fastify.swagger())
}, { name: 'swagger', fastify: '5.x' })
