/**
 * The products as the documents' examples name them (the manifest's, the discovery documents',
 * the payment page's request and the x402 models'): in one place. schemas/ sits below lib/ and
 * cannot read the catalogue (lib/catalogue/), so its examples are written here once.
 */
export const EXAMPLE_PRODUCT = {
  name: 'fetch-price',
  path: '/api/fetch-price/:token',
  tool: 'fetch_price',
  resource: 'https://merchant.example/api/fetch-price/SOL'
} as const

/** Resources a merchant sells, as a discovery document lists them. */
export const EXAMPLE_RESOURCES = [EXAMPLE_PRODUCT.resource, 'https://merchant.example/api/analyze-token/7EYnhQoR9YM3N7UoaKRoA44Uy8JeaZV3qyouov87awMs']
