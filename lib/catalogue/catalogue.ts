import { Type, type TObject } from '@sinclair/typebox'
import { ANALYZE_TOKEN } from './analyze-token.js'
import { FETCH_PRICE } from './fetch-price.js'
import type { Product } from './product.js'

/**
 * The merchant's products, in the order every list shows them. The app takes one (`app(fastify,
 * { config, catalogue })`, CATALOGUE by default) and every door and document derives from it.
 */
export interface Catalogue {
  readonly products: readonly Product[]
  /** The product of a service name; throws for a name that is none (a bug, never input). */
  product: (name: string) => Product
  has: (name: unknown) => name is string
  /** The product an MCP tool sells, if it sells one. */
  byTool: (toolName: string) => Product | undefined
}

export function createCatalogue (products: readonly Product[]): Catalogue {
  const byName = new Map(products.map(product => [product.name, product]))
  const byTool = new Map(products.map(product => [product.tool.name, product]))
  for (const key of ['name', 'path', 'tool', 'operation'] as const) {
    const seen = new Set(products.map(product => key === 'tool' ? product.tool.name : key === 'operation' ? product.operation.id : product[key]))
    if (seen.size !== products.length) throw new Error(`two products share a ${key}`)
  }
  return {
    products,
    product (name) {
      const found = byName.get(name)
      if (found === undefined) throw new Error(`no product "${name}" in the catalogue`)
      return found
    },
    has: (name): name is string => typeof name === 'string' && byName.has(name),
    byTool: toolName => byTool.get(toolName)
  }
}

/** The products this merchant sells. */
export const CATALOGUE = createCatalogue([FETCH_PRICE, ANALYZE_TOKEN])

const toolInputs = new WeakMap<Product, TObject>()

/** The arguments of the product's MCP tool and A2A skill: the route's path parameters and query, closed. */
export function toolInput (product: Product): TObject {
  let input = toolInputs.get(product)
  if (input === undefined) {
    input = Type.Object({ ...product.params.properties, ...product.query?.properties }, { additionalProperties: false })
    toolInputs.set(product, input)
  }
  return input
}

/** The names of a route template's path parameters: `token` of /api/fetch-price/:token. */
export function pathParameters (path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map(match => match[1])
}

/** A route template with values for its parameters (encoded): the example URL's path. */
export function fillPath (path: string, params: Record<string, string>): string {
  return path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(params[name]))
}
