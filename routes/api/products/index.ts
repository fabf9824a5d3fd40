import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, preHandlerHookHandler } from 'fastify'
import { pathParameters } from '../../../lib/catalogue/catalogue.js'
import type { Product, ProductInput, ProductServices } from '../../../lib/catalogue/product.js'
import { passTemplateProbe } from './template-probe.js'
import { PaymentRequired, PROOF_HEADERS } from '../../../schemas/payment.js'
import { defaultResponse, documented, errorResponses, HEADERS, paymentRequiredResponse } from '../../../schemas/responses.js'

/**
 * The paid routes, one per product of the catalogue, at the path its entry names: the same
 * registration for every product, so a product is its entry, its service and its schema. The
 * payment gate (plugins/app/payment.ts) joins each route by its `paidService`.
 */
const routes: FastifyPluginAsync = async (fastify) => {
  for (const product of fastify.catalogue.products) registerProduct(fastify, product, fastify.services)
}

function registerProduct (fastify: FastifyInstance, product: Product, services: ProductServices): void {
  const { dataNetwork } = fastify.config
  const { id } = product.operation
  const operation = { id, errors: product.operation.errors }
  const pathNames = pathParameters(product.path)
  const origin = (field: string) => Object.hasOwn(product.params.properties, field) ? 'params' : 'querystring'
  const inputOf = (request: FastifyRequest): ProductInput => ({ ...request.params as ProductInput, ...request.query as ProductInput })

  /**
   * Validation failures are thrown here, but for a crawler's request of the template itself
   * (`%7Bparam%7D`), which gets the 402 with the terms (routes/api/products/template-probe.ts).
   */
  function isTemplateProbe (request: FastifyRequest): boolean {
    const params = request.params as Record<string, unknown>
    return passTemplateProbe(request, pathNames.find(name => params[name] === `{${name}}`) ?? pathNames[0])
  }

  // Runs ahead of the payment gate (a preHandler too, so the request meets one hook stage, not
  // two): nobody pays to learn that their input is refused. Callback style: each hook stage costs
  // every request Fastify's hook runner, and a synchronous check needs no promise.
  const precheck: preHandlerHookHandler = (request, _reply, done) => {
    try {
      if (isTemplateProbe(request)) return done()
      const checking = product.precheck?.(services, inputOf(request), origin)
      if (checking === undefined) return done()
      checking.then(() => done(), done)
    } catch (error) {
      done(error as Error)
    }
  }

  fastify.route({
    method: product.method,
    url: product.path,
    // The payment gate sets the fixed headers.
    config: { paidService: product.name, setsFixedHeaders: true },
    schema: {
      operationId: id,
      tags: ['paid'],
      summary: product.operation.summary(dataNetwork),
      description: product.operation.description(dataNetwork),
      params: product.params,
      ...(product.query === undefined ? {} : { querystring: product.query }),
      headers: PROOF_HEADERS,
      response: {
        200: documented(product.output, product.operation.delivered, HEADERS.receipt),
        402: paymentRequiredResponse(PaymentRequired),
        ...errorResponses(operation),
        default: defaultResponse(operation)
      }
    },
    attachValidation: true,
    preHandler: precheck,
    handler: async (request) => await product.run(services, inputOf(request))
  })
}

export default routes
