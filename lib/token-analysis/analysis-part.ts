import type { Address, Slot } from '@solana/kit'
import type { CheckEntryBody, TokenAnalysisBody } from '../../schemas/token-analysis.js'
import type { HolderRead } from './holders.js'
import type { MarketRead } from './market.js'
import type { Finding } from './risk-weights.js'

/** What every part of the analysis starts from: the mint as read first, and the reads shared by all parts. */
export interface PartInput {
  mint: Address
  tokenProgram: Address
  decimals: number
  supply: bigint
  mintAuthority: Address | null
  freezeAuthority: Address | null
  /** The slot of the mint read. */
  slot: Slot
  /** The largest accounts and the supply (shared with the core analysis; never rejects). */
  holders: Promise<HolderRead>
  /** Jupiter's token record (never rejects; `not_applicable` without a price API). */
  market: Promise<MarketRead>
  /** Aborts when the paid call's budget for the parts runs out: a part stops reading then. */
  signal: AbortSignal
}

/** The check entry a part adds, without its findings (the analysis files them in). */
export type PartCheck = Omit<CheckEntryBody, 'risks'>

/** What a part found: the answer's fields it fills, the findings it makes, and the checks it ran. */
export interface PartOutcome {
  /** Top-level fields of the answer; an object field already present (e.g. `holders`) is merged one level deep. */
  fields: Partial<TokenAnalysisBody>
  findings: Finding[]
  checks: PartCheck[]
}

/**
 * One part of the analysis (pools, curve, launch, clusters, creator): its reads, its facts, its
 * findings and its checks, in one module, so the next part is one more module and
 * analyze-token.ts does not grow with each. `read` should stop at `signal`; the analysis does not
 * wait for it past the budget either way and answers `unavailable` for it (`unavailable(reason)`).
 */
export interface AnalysisPart {
  /** A name for logs and reasons, e.g. 'liquidity'. */
  name: string
  read: (input: PartInput) => Promise<PartOutcome>
  /** The outcome when the part failed or ran out of time: its fields and checks saying why. */
  unavailable: (reason: string, input: PartInput) => PartOutcome
}
