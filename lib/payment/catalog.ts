import { CATALOGUE } from '../catalogue/catalogue.js'
import type { Product } from '../catalogue/product.js'

/** The payment arithmetic, kept importable from here. */
export { formatTokenAmount, PAYMENT_TOKEN_DECIMALS } from '../solana/token-amount.js'

/** A paid service is named by its product's name in the catalogue (lib/catalogue/). */
export type PaidServiceName = string
export type PaidService = Product

/** The default catalogue's products by name: what a reader without an app of its own (the fixtures, the bench) prices. */
export const PAID_SERVICES: Readonly<Record<PaidServiceName, PaidService>> = Object.fromEntries(CATALOGUE.products.map(product => [product.name, product]))
