/**
 * The liquidity findings on the scale of risk-weights.ts (argued in docs/token-analysis.md),
 * spread into RISK_RULES there. Each message names the pool and its program, so a buyer can read
 * the same accounts (`liquidity.pools[].evidence`).
 */
export const LIQUIDITY_RULES = {
  LP_UNLOCKED: { level: 'danger', weight: 25, message: '{percent} of the liquidity of the token\'s largest pool ({pool}, {dex}) is neither burned nor locked: whoever holds it can withdraw it.' },
  NO_POOL: { level: 'warning', weight: 15, message: 'No pool of the token was found on {programs}: it cannot be sold on those exchanges.' }
} as const

export const LIQUIDITY_THRESHOLDS = {
  /** Unlocked share of the largest pool's LP (or liquidity), in basis points, from which LP_UNLOCKED is reported. */
  lpUnlockedBasisPoints: 500
} as const
