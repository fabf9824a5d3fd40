import type { Config } from '../../config.js'
import { toolOfService } from '../mcp/tool-catalog.js'
import { formatTokenAmount, PAID_SERVICES, PAYMENT_TOKEN_DECIMALS, type PaidServiceName } from '../payment/catalog.js'
import { x402Network } from '../x402/networks.js'

/**
 * The terms of each product as the discovery documents print them (x-payment-info in the OpenAPI
 * document, /.well-known/x402, /llms.txt): from the one price table and the configuration the
 * 402s and the manifest read too, so every reader sees the same price, asset, network and payTo.
 */
export interface ProductTerms {
  service: PaidServiceName
  method: string
  /** Route template in the router's form: /api/fetch-price/:token */
  path: string
  /** The same template in OpenAPI's form: /api/fetch-price/{token} */
  openapiPath: string
  tool: string
  description: string
  /** Price in base units of the payment token (what the 402 asks). */
  amount: string
  /** The same price in token units, exact decimal text: "0.05". */
  price: string
  symbol: string
  decimals: number
  asset: string
  payTo: string
  network: { v1: string, v2: string }
}

export type TermsConfig = Pick<Config, 'PAYMENT_TOKEN_SYMBOL' | 'paymentAddress' | 'paymentMint' | 'x402Network'>

export function productTerms (config: TermsConfig): ProductTerms[] {
  const network = x402Network(config.x402Network)
  return (Object.keys(PAID_SERVICES) as PaidServiceName[]).map(service => {
    const paid = PAID_SERVICES[service]
    return {
      service,
      method: paid.method,
      path: paid.path,
      openapiPath: paid.path.replace(/:(\w+)/g, '{$1}'),
      tool: toolOfService(service),
      description: paid.description,
      amount: paid.price.toString(),
      price: formatTokenAmount(paid.price),
      symbol: config.PAYMENT_TOKEN_SYMBOL,
      decimals: PAYMENT_TOKEN_DECIMALS,
      asset: config.paymentMint,
      payTo: config.paymentAddress,
      network
    }
  })
}

/** The example URL of a product that answers 402 (a directory lists concrete resources). */
export function exampleUrl (base: string, terms: ProductTerms, params: Record<string, string>): string {
  return base + terms.path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(params[name]))
}
