import { SERVICE_VERSION } from '../../project.js'
import type { ManifestBody } from '../../schemas/manifest.js'
import { PROOF_PAYER_RULE } from '../../schemas/payment-headers.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import { formatTokenAmount, PAYMENT_TOKEN_DECIMALS } from '../payment/catalog.js'
import { AGENT_CARD_PATH } from '../../schemas/a2a.js'
import type { NetworkName } from '../solana/networks.js'
import type { TermsConfig } from './payment-terms.js'
import { receiptBaseUrl } from '../receipts/did-document.js'
import { refundExtension, type RefundSettings } from '../refunds/refund-extension.js'

/** Path of the MCP endpoint (streamable HTTP), beside the HTTP routes on the same port. */
export const MCP_PATH = '/mcp'

/** The settings the manifest shows (config.ts's Config has them; lib/ names no config type). */
interface ManifestConfig extends TermsConfig, RefundSettings {
  PUBLIC_BASE_URL?: string
  PORT: number
  AGENT_NAME: string
  AGENT_DESCRIPTION: string
  REQUIRE_WALLET_SIGNATURE: boolean
  REDELIVERY: 'payment' | 'buyer-only'
  MPP_CHARGE: boolean
  network: NetworkName
  dataNetwork: NetworkName
}

/**
 * The manifest (/.well-known/agent.json, and the get_manifest MCP tool): everything but the
 * absolute URLs is fixed at start-up; the URLs come from the base the caller reached us at.
 */
export function createManifestBuilder (config: ManifestConfig, catalogue: Catalogue): (baseUrl: string) => ManifestBody {
  const services = catalogue.products.map(service => {
    return {
      name: service.name,
      description: service.description,
      endpoint: service.path,
      method: service.method,
      price: Number(service.price),
      price_display: formatTokenAmount(service.price),
      payment_token: config.PAYMENT_TOKEN_SYMBOL,
      payment_network: config.x402Network,
      data_network: config.dataNetwork,
      mcp_tool: service.tool.name
    }
  })

  // The 402's extensions.refund as it is (its endpoint on the receipts' base, whatever base asked).
  const refund = refundExtension(config, receiptBaseUrl(config.PUBLIC_BASE_URL, config.PORT))
  return (base) => ({
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
    mcp_url: `${base}${MCP_PATH}`,
    a2a_card_url: `${base}${AGENT_CARD_PATH}`,
    mcp_bridge: `token-merchant mcp --merchant ${base}`,
    proof_wallet_signature: config.REQUIRE_WALLET_SIGNATURE ? 'required' : 'optional',
    payment_methods: ['x402', 'pay-then-prove', ...(config.MPP_CHARGE ? ['mpp' as const] : [])],
    proof_payer_rule: PROOF_PAYER_RULE,
    redelivery: config.REDELIVERY,
    ...(refund === undefined ? {} : refund)
  })
}
