/**
 * A mint's launch as the analysis read it (lib/token-analysis/launch/): its creation and early
 * receipts never change once read, so they are kept per mint and cluster, and a repeated analysis
 * reads only the balances that can change. The same on every engine: one row per mint, its facts as
 * JSON; the first write wins (two analyses reading the same launch write the same facts).
 */
export interface LaunchFactsRepository {
  /** The facts' JSON, unless this mint's launch was never kept. */
  load (network: string, mint: string): Promise<string | undefined>
  /** Keeps the facts unless already kept, one atomic statement. */
  save (network: string, mint: string, facts: string, now?: number): Promise<void>
  /** The wallets among `wallets` whose first funder is kept, with it and its funding signature. */
  loadFunders (network: string, wallets: string[]): Promise<Map<string, { funder: string, signature: string }>>
  /** Keeps a wallet's first funder (the sender of its first SOL: that never changes either). */
  saveFunder (network: string, wallet: string, funder: string, signature: string): Promise<void>
}
