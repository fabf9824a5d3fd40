/**
 * The launch findings on the scale of risk-weights.ts (argued in docs/token-analysis.md), spread
 * into RISK_RULES there. Each message names its evidence: how many wallets, which share, which
 * signature or funder, so a buyer can check it on chain.
 */
export const LAUNCH_RULES = {
  EARLY_BUYERS_HOLD: { level: 'warning', weight: 15, message: '{count} wallets that received the token within 20 slots of its creation ({signature}) still hold {percent} of the supply.' },
  HOLDER_CLUSTER_CREATOR: { level: 'danger', weight: 25, message: '{count} of the largest holders, all first funded by the creator {funder} (first: {signature}), hold {percent} of the supply: one person behind several wallets.' },
  HOLDER_CLUSTER: { level: 'warning', weight: 15, message: '{count} of the largest holders, all first funded by {funder} (first: {signature}), hold {percent} of the supply.' },
  SERIAL_CREATOR: { level: 'warning', weight: 10, message: 'The creator {creator} paid for the creation of {count} other mints in its {scanned} newest transactions (the newest: {signature}).' },
  LAUNCH_BUNDLED: { level: 'warning', weight: 10, message: 'The creation transaction {signature} itself handed {percent} of the supply to {count} wallets other than the creator.' }
} as const

/** Shares, in basis points of the supply, from which the launch findings are reported. */
export const LAUNCH_THRESHOLDS = {
  earlyBuyersHoldBasisPoints: 1000,
  /** A funding cluster's share from which HOLDER_CLUSTER is reported. */
  clusterBasisPoints: 1000,
  /** Other mints created by the creator from which SERIAL_CREATOR is reported. */
  serialCreatorMints: 3
} as const
