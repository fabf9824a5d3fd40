import { address } from '@solana/kit'
import type { ManifestBody } from '../../schemas/manifest.js'
import type { PriceResponseBody } from '../../schemas/price.js'
import type { RegistryListingBody } from '../../schemas/registry.js'
import { DEFAULT_REPUTATION_WINDOW, type ReputationBody, type ReputationWindowName } from '../../schemas/reputation.js'
import type { TokenAnalysisBody } from '../../schemas/token-analysis.js'
import { checkTokenInputs } from '../prices/check-token-inputs.js'
import type { PriceService } from '../prices/price-service.js'
import { checkMintInput } from '../token-analysis/check-mint-input.js'
import type { McpToolName } from './tool-catalog.js'

/** The services the HTTP routes call; the tools call the very same ones. */
export interface ToolServices {
  prices: Pick<PriceService, 'resolveToken' | 'getPrice'>
  tokenAnalysis: { analyze: (mint: ReturnType<typeof address>) => Promise<TokenAnalysisBody> }
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
}

const text = (value: unknown) => typeof value === 'string' ? value : undefined

/**
 * The tools over the merchant's services. `baseUrl` is asked only by get_manifest (it may refuse a
 * Host header that is not a valid host, as the HTTP route does).
 */
export function createMerchantTools (services: ToolServices, baseUrl: () => string): MerchantTools {
  return {
    async precheck (name, args) {
      if (name === 'fetch_price') {
        await checkTokenInputs(services.prices, [
          { in: 'arguments', path: 'token', value: args.token },
          { in: 'arguments', path: 'vs', value: args.vs }
        ])
      } else if (name === 'analyze_token') {
        checkMintInput({ in: 'arguments', path: 'address', value: String(args.address) })
      }
    },

    async run (name, args) {
      switch (name) {
        case 'fetch_price': {
          const document: PriceResponseBody = { data: await services.prices.getPrice(String(args.token), text(args.vs)) }
          return document
        }
        case 'analyze_token':
          return await services.tokenAnalysis.analyze(address(String(args.address)))
        case 'get_manifest':
          return services.manifest(baseUrl())
        case 'get_reputation':
          return await services.reputation.report((text(args.window) ?? DEFAULT_REPUTATION_WINDOW) as ReputationWindowName)
        case 'list_registry':
          return await services.registry.list({ wallet: text(args.wallet), name: text(args.name) })
      }
    }
  }
}
