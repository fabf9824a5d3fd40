import type { Product } from '../catalogue/product.js'

/** The payment arithmetic, kept importable from here. */
export { formatTokenAmount, PAYMENT_TOKEN_DECIMALS } from '../solana/token-amount.js'

/** A paid service is named by its product's name in the catalogue (lib/catalogue/). */
export type PaidServiceName = string
export type PaidService = Product
