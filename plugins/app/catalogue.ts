import fp from 'fastify-plugin'
import type { Catalogue } from '../../lib/catalogue/catalogue.js'
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
 */
export default fp<{ catalogue: Catalogue }>(async (fastify, opts) => {
  fastify.decorate('catalogue', opts.catalogue)
  for (const product of opts.catalogue.products) {
    for (const model of operationErrorModels({ id: product.operation.id, errors: product.operation.errors })) fastify.addSchema(model)
    const id = product.output.$id
    if (id !== undefined && fastify.getSchema(id) === undefined) fastify.addSchema(product.output)
  }
}, { name: 'catalogue', fastify: '5.x' })
