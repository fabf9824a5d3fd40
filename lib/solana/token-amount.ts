/** Prices are base units of the 6-decimal payment token. Fastify-free and dependency-free: the payment page's browser script uses it too. */
export const PAYMENT_TOKEN_DECIMALS = 6

/** "0.05" for 50000 base units: exact decimal text, never a float. */
export function formatTokenAmount (baseUnits: bigint, decimals = PAYMENT_TOKEN_DECIMALS): string {
  const scale = 10n ** BigInt(decimals)
  const whole = baseUnits / scale
  const fraction = (baseUnits % scale).toString().padStart(decimals, '0').replace(/0+$/, '')
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`
}
