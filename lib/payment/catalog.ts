/**
 * The price table: the one place the manifest, the 402 challenge and the payment check read.
 * Prices are base units of the 6-decimal payment token.
 */
export const PAYMENT_TOKEN_DECIMALS = 6

export const PAID_SERVICES = {
  'fetch-price': {
    path: '/api/fetch-price/:token',
    method: 'GET',
    price: 50_000n,
    description: 'Current USD-quoted price of a Solana token (by symbol or mint), optionally against another quote token.'
  },
  'analyze-token': {
    path: '/api/analyze-token/:address',
    method: 'GET',
    price: 100_000n,
    description: 'Security analysis of a token mint: authorities, Token-2022 extensions, holder concentration, metadata, whether it can be sold and into how much liquidity, and a 1-100 risk score.'
  }
} as const

export type PaidServiceName = keyof typeof PAID_SERVICES
export type PaidService = (typeof PAID_SERVICES)[PaidServiceName]

export function isPaidServiceName (name: unknown): name is PaidServiceName {
  return typeof name === 'string' && Object.hasOwn(PAID_SERVICES, name)
}

/** "0.05" for 50000 base units: exact decimal text, never a float. */
export function formatTokenAmount (baseUnits: bigint, decimals = PAYMENT_TOKEN_DECIMALS): string {
  const scale = 10n ** BigInt(decimals)
  const whole = baseUnits / scale
  const fraction = (baseUnits % scale).toString().padStart(decimals, '0').replace(/0+$/, '')
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`
}
