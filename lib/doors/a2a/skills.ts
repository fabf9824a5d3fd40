import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import type { TObject } from '@sinclair/typebox'
import { toolInput, type Catalogue } from '../../catalogue/catalogue.js'
import type { Product } from '../../catalogue/product.js'
import type { McpToolName } from '../../tools/tool-catalog.js'
import type { PaidServiceName } from '../../payment/catalog.js'

/**
 * The products as A2A skills, derived from the one catalogue: a skill is a paid service (its id is
 * the service name), its input the MCP tool's arguments, which are the HTTP route's parameters
 * checked by the same TypeBox schemas. A message names the skill and its input in one data part:
 * `{ "skill": "<service>", ...input }`.
 */

export interface Purchase {
  service: PaidServiceName
  tool: McpToolName
  /** The input, checked against the skill's schema. */
  args: Record<string, unknown>
}

export const SKILL_FIELD = 'skill'

const checks = new WeakMap<Product, TypeCheck<TObject>>()

function checkOf (product: Product): TypeCheck<TObject> {
  let check = checks.get(product)
  if (check === undefined) {
    check = TypeCompiler.Compile(toolInput(product))
    checks.set(product, check)
  }
  return check
}

/** A working example of each skill's data part, from the discovery examples (the same ones the 402s carry). */
export function exampleInput (service: PaidServiceName, catalogue: Catalogue): Record<string, string> {
  const { params, query } = catalogue.product(service).example
  return { [SKILL_FIELD]: service, ...params, ...query }
}

/** The data part each skill takes, as text: fields, which are optional, and an example. */
export function expectedShape (catalogue: Catalogue): string {
  return catalogue.products.map(product => {
    const input = toolInput(product)
    const required = new Set(input.required ?? [])
    const fields = Object.keys(input.properties).map(name => `"${name}"${required.has(name) ? '' : ' (optional)'}`).join(', ')
    return `{ "${SKILL_FIELD}": "${product.name}", ${fields} } e.g. ${JSON.stringify(exampleInput(product.name, catalogue))}`
  }).join(' or ')
}

/** Reads a purchase from a data part's value: the skill and its input, or what is wrong with it. */
export function readPurchase (value: unknown, catalogue: Catalogue): Purchase | { problems: string[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problems: ['the data part is not a JSON object'] }
  const { [SKILL_FIELD]: skill, ...args } = value as Record<string, unknown>
  if (!catalogue.has(skill)) {
    return { problems: [`"${SKILL_FIELD}" must be one of ${catalogue.products.map(product => `"${product.name}"`).join(', ')}; got ${JSON.stringify(skill) ?? 'nothing'}`] }
  }
  const product = catalogue.product(skill)
  const check = checkOf(product)
  if (!check.Check(args)) {
    return { problems: [...check.Errors(args)].map(error => `${error.path === '' ? 'input' : error.path.slice(1).replaceAll('/', '.')}: ${error.message}`) }
  }
  return { service: product.name, tool: product.tool.name, args }
}

/**
 * The resource a skill's payment buys: the skill and its input, canonical (sorted keys). A payment
 * made for it names it, so it never buys another input, an HTTP route or an MCP tool, nor the other
 * way round (X402_RESOURCE_MISMATCH).
 */
export function skillResourceUrl (purchase: Pick<Purchase, 'service' | 'args'>): string {
  const query = Object.keys(purchase.args).sort()
    .filter(key => purchase.args[key] !== undefined)
    .map(key => `${encodeURIComponent(key)}=${encodeURIComponent(String(purchase.args[key]))}`).join('&')
  return `a2a://skill/${purchase.service}${query === '' ? '' : `?${query}`}`
}
