import type { TSchema } from '@sinclair/typebox'
import type { PaymentRequired } from '@x402/core/types'
import {
  bazaarResourceServerExtension,
  declareDiscoveryExtension,
  validateDiscoveryExtension,
  type DiscoveryExtension
} from '@x402/extensions/bazaar'
import { fillPath, toolInput } from '../catalogue/catalogue.js'
import type { Product } from '../catalogue/product.js'
import { selfContainedSchema } from '../../schemas/self-contained.js'
import { MODELS } from '../../schemas/index.js'

/**
 * The x402 `bazaar` discovery extension (x402-foundation/x402 specs/extensions/bazaar.md) of each
 * paid product: what a facilitator or a directory catalogues from a 402, built with
 * `@x402/extensions` from the same TypeBox models the routes and the MCP tools are checked with
 * (the product's entry in the catalogue).
 * We settle as our own facilitator, so no Bazaar sees our traffic: the 402 must describe itself.
 */

type JsonSchema = Record<string, unknown>
type Extensions = Record<string, unknown>

/**
 * A model as the extension's schema takes it: self-contained (the validator refuses any `$ref`
 * or `$id` that is not local) and without descriptions and examples, which the OpenAPI document
 * already carries: the extension travels base64-encoded in the PAYMENT-REQUIRED header, and
 * clients refuse response headers past 16 KiB (Node's and undici's default limit).
 */
// `format` too: the validator's Ajv knows no formats and warns on the console for each.
const OMITTED_KEYWORDS = new Set(['description', 'examples', 'title', 'format'])

function compact (schema: TSchema, depth = Infinity): JsonSchema {
  const strip = (node: unknown, levels: number): unknown => {
    if (Array.isArray(node)) return node.map(item => strip(item, levels))
    if (typeof node !== 'object' || node === null) return node
    const record = node as JsonSchema
    // Past the depth kept, a value is described by its type alone.
    if (levels <= 0) return typeof record.type === 'string' ? { type: record.type } : {}
    return Object.fromEntries(Object.entries(record)
      .filter(([key]) => !OMITTED_KEYWORDS.has(key))
      .map(([key, value]) => [key, key === 'properties'
        ? Object.fromEntries(Object.entries(value as JsonSchema).map(([name, property]) => [name, strip(property, levels - 1)]))
        : strip(value, key === 'items' ? levels - 1 : levels)]))
  }
  return strip(selfContainedSchema(schema, MODELS), depth) as JsonSchema
}

// The output model's top level (the analysis' sections by their type), beside the full example:
// the whole TokenAnalysis model would make the PAYMENT-REQUIRED header too long, and a payment payload
// (clients echo the extensions) too large for BODY_LIMIT_BYTES over MCP. The OpenAPI document has it all.
const OUTPUT_DEPTH = 1

function checked (extension: DiscoveryExtension, what: string): DiscoveryExtension {
  const result = validateDiscoveryExtension(extension)
  if (!result.valid) throw new Error(`bazaar extension of ${what} does not validate: ${(result.errors ?? []).join('; ')}`)
  return extension
}

/** The HTTP declaration of a product, before the request's method and path are known. */
function declareHttp (models: Product): DiscoveryExtension {
  const { properties: pathParamsProperties, required: pathParamsRequired } = compact(models.params)
  const declared = declareDiscoveryExtension({
    ...(models.query === undefined ? {} : { input: models.example.query, inputSchema: { properties: compact(models.query).properties } }),
    pathParamsSchema: { properties: pathParamsProperties, required: pathParamsRequired },
    output: { example: models.example.output, schema: compact(models.output, OUTPUT_DEPTH) }
  })
  return declared.bazaar
}

const httpDeclarations = new WeakMap<Product, DiscoveryExtension>()

/**
 * The `bazaar` extension of a paid route's 402 for one resource URL: the declaration enriched by
 * `@x402/extensions`' own server extension, which adds the method, the `routeTemplate`
 * (`/api/<product>/:param`) and the request's `pathParams`. A crawler probing the template
 * itself (`/api/<product>/%7Bparam%7D`) is shown the example parameters.
 */
export function httpDiscoveryExtension (product: Product, resourceUrl: string): DiscoveryExtension {
  let declared = httpDeclarations.get(product)
  if (declared === undefined) {
    declared = declareHttp(product)
    httpDeclarations.set(product, declared)
    // Checked once, at the product's example request: each 402 then differs only by its path parameters.
    checked(enrich(product, declared, fillPath(product.path, product.example.params)), product.name)
  }
  return enrich(product, declared, new URL(resourceUrl).pathname)
}

function enrich (product: Product, declared: DiscoveryExtension, path: string): DiscoveryExtension {
  const { path: routePattern, method } = product
  const enriched = bazaarResourceServerExtension.enrichDeclaration?.(declared, { method, routePattern, adapter: { getPath: () => path } }) as DiscoveryExtension
  const input = enriched.info.input as { pathParams?: Record<string, string> }
  const pathParams = Object.fromEntries(Object.entries(input.pathParams ?? {}).map(([name, raw]) => [name, decodePathSegment(raw)]))
  const isTemplate = Object.entries(pathParams).some(([name, value]) => value === `{${name}}` || value === `:${name}`)
  return { ...enriched, info: { ...enriched.info, input: { ...enriched.info.input, pathParams: isTemplate ? product.example.params : pathParams } } } as DiscoveryExtension
}

function decodePathSegment (raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

const toolDeclarations = new WeakMap<Product, DiscoveryExtension>()

/** The `bazaar` extension of a paid MCP tool's PaymentRequired: `info.input = { type: "mcp", toolName, inputSchema, example }`. */
export function toolDiscoveryExtension (product: Product): DiscoveryExtension {
  const toolName = product.tool.name
  let declared = toolDeclarations.get(product)
  if (declared === undefined) {
    declared = checked(declareDiscoveryExtension({
      toolName,
      description: product.tool.summary,
      transport: 'streamable-http',
      inputSchema: compact(toolInput(product)),
      example: { ...product.example.params, ...product.example.query },
      output: { example: product.example.output, schema: compact(product.output, OUTPUT_DEPTH) }
    }).bazaar, toolName)
    toolDeclarations.set(product, declared)
  }
  return declared
}

const withExtension = (paymentRequired: PaymentRequired, bazaar: DiscoveryExtension): PaymentRequired =>
  ({ ...paymentRequired, extensions: { ...paymentRequired.extensions as Extensions | undefined, bazaar } })

/** A paid route's v2 PaymentRequired with its `bazaar` extension (beside any other extension it carries). */
export function withHttpDiscovery (paymentRequired: PaymentRequired, product: Product): PaymentRequired {
  return withExtension(paymentRequired, httpDiscoveryExtension(product, paymentRequired.resource.url))
}

/** A paid MCP tool's PaymentRequired with its `bazaar` extension. */
export function withToolDiscovery (paymentRequired: PaymentRequired, product: Product): PaymentRequired {
  return withExtension(paymentRequired, toolDiscoveryExtension(product))
}
