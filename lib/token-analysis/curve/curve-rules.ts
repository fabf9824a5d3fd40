/**
 * The bonding curve finding on the scale of risk-weights.ts (argued in docs/token-analysis.md),
 * spread into RISK_RULES there. Its message names the curve account, so a buyer reads it too.
 */
export const CURVE_RULES = {
  ON_BONDING_CURVE: { level: 'info', weight: 2, message: 'The token still trades on its pump.fun bonding curve ({curve}), {progress} sold: the program holds its liquidity, which nobody can withdraw, until the curve completes and moves to a pool.' }
} as const
