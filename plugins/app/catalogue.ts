import fp from 'fastify-plugin'
import { ConfigError, paidRequestTimeouts } from '../../config.js'
import type { Catalogue } from '../../lib/catalogue/catalogue.js'
import { catalogueTimeProblems, paidRequestPhases } from '../../lib/ops/shutdown-grace.js'
import { operationErrorModels } from '../../schemas/responses.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The products sold: every door and document derives from it (lib/catalogue/). */
    catalogue: Catalogue
  }
}

/**
 * Makes the catalogue available as `fastify.catalogue`, with the named models of its products'
 * operations: their error models, and their documents unless schemas/ registered them already.
 * The configuration's close grace and payment lease are checked against these products (a slower
 * product than the built-in ones needs more of both): an app that would cut its own paid requests
 * does not start.
 */
export default fp<{ catalogue: Catalogue }>(async (fastify, opts) => {
  const { config } = fastify
  const phases = paidRequestPhases(paidRequestTimeouts(config), opts.catalogue.products)
  const problems = catalogueTimeProblems({ closeGraceMs: config.closeGraceMs, leaseSeconds: config.PAYMENT_LEASE_SECONDS }, phases)
  if (problems.length > 0) throw new ConfigError(problems)
  fastify.decorate('catalogue', opts.catalogue)
  for (const product of opts.catalogue.products) {
    for (const model of operationErrorModels({ id: product.operation.id, errors: product.operation.errors })) fastify.addSchema(model)
    const id = product.output.$id
    if (id !== undefined && fastify.getSchema(id) === undefined) fastify.addSchema(product.output)
  }
}, { name: 'catalogue', fastify: '5.x', dependencies: ['config'] })
