import { fillPath, type Catalogue } from '../catalogue/catalogue.js'
import { formatTokenAmount, PAYMENT_TOKEN_DECIMALS, type PaidServiceName } from '../payment/catalog.js'
import { x402Network, type X402NetworkName } from '../x402/networks.js'

/**
 * The terms of each product as the discovery documents print them (x-payment-info in the OpenAPI
 * document, /.well-known/x402, /llms.txt): from the catalogue and the configuration the
 * 402s and the manifest read too, so every reader sees the same price, asset, network and payTo.
 */
export interface ProductTerms {
  service: PaidServiceName
  method: string
  /** Route template in the router's form: /api/<product>/:param */
  path: string
  /** The same template in OpenAPI's form: /api/<product>/{param} */
  openapiPath: string
  tool: string
  /** The path parameters of the product's example call. */
  exampleParams: Record<string, string>
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

/** The settings the terms are made of (config.ts's Config has them; lib/ names no config type). */
export interface TermsConfig {
  PAYMENT_TOKEN_SYMBOL: string
  paymentAddress: string
  paymentMint: string
  x402Network: X402NetworkName
}

/**
 * How an MPP client pays (the Payment HTTP authentication scheme, Solana's charge), said the same
 * way in every discovery document that lists the ways to pay, when MPP_CHARGE is on.
 */
export const MPP_CHARGE_HOW_TO = 'MPP: the 402 also carries WWW-Authenticate: Payment challenges (method solana, intent charge), one to pull ' +
  '(sign the transfer, the merchant co-signs as fee payer and sends it) and one to push (send the transfer yourself and present its signature); ' +
  'repeat the request with Authorization: Payment and the credential, and the document comes with Payment-Receipt.'

export function productTerms (config: TermsConfig, catalogue: Catalogue): ProductTerms[] {
  const network = x402Network(config.x402Network)
  return catalogue.products.map(paid => {
    return {
      service: paid.name,
      method: paid.method,
      path: paid.path,
      openapiPath: paid.path.replace(/:(\w+)/g, '{$1}'),
      tool: paid.tool.name,
      exampleParams: paid.example.params,
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
  return base + fillPath(terms.path, params)
}
