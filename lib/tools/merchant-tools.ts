import type { ManifestBody } from '../../schemas/manifest.js'
import type { RegistryListingBody } from '../../schemas/registry.js'
import { DEFAULT_REPUTATION_WINDOW, type ReputationBody, type ReputationWindowName } from '../../schemas/reputation.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import type { ProductServices } from '../catalogue/product.js'
import type { McpToolName } from './tool-catalog.js'

/** The services the HTTP routes call; the tools call the very same ones. */
export interface ToolServices extends ProductServices {
  registry: { list: (filters: { wallet?: string, name?: string }) => Promise<RegistryListingBody> }
  reputation: { report: (window: ReputationWindowName) => ReputationBody | Promise<ReputationBody> }
  manifest: (baseUrl: string) => ManifestBody
}

/** Arguments after schema validation. */
export type ToolArguments = Record<string, unknown>

export interface MerchantTools {
  /** What the HTTP route refuses before asking for payment, refused before payment here too. */
  precheck: (name: McpToolName, args: ToolArguments) => Promise<void>
  /** The document the HTTP route answers with. */
  run: (name: McpToolName, args: ToolArguments) => Promise<object>
  /** The paid service a tool sells, or undefined for a free tool. */
  paidServiceOf: (name: McpToolName) => string | undefined
}

const text = (value: unknown) => typeof value === 'string' ? value : undefined
const fromArguments = () => 'arguments'

/**
 * The tools over the merchant's services: a product's tool runs its entry in the catalogue (the
 * same precheck and run as its route), a free tool reads its document. `baseUrl` is asked only by
 * get_manifest (it may refuse a Host header that is not a valid host, as the HTTP route does).
 */
export function createMerchantTools (services: ToolServices, baseUrl: () => string, catalogue: Catalogue): MerchantTools {
  return {
    paidServiceOf: name => catalogue.byTool(name)?.name,

    async precheck (name, args) {
      await catalogue.byTool(name)?.precheck?.(services, args, fromArguments)
    },

    async run (name, args) {
      const product = catalogue.byTool(name)
      if (product !== undefined) return await product.run(services, args)
      switch (name) {
        case 'get_manifest':
          return services.manifest(baseUrl())
        case 'get_reputation':
          return await services.reputation.report((text(args.window) ?? DEFAULT_REPUTATION_WINDOW) as ReputationWindowName)
        case 'list_registry':
          return await services.registry.list({ wallet: text(args.wallet), name: text(args.name) })
        default:
          throw new Error(`no tool "${name}"`)
      }
    }
  }
}
