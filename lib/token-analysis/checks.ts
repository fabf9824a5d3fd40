import type { CheckEntryBody, HolderDistributionBody, RiskBody, TokenExtensionBody, TokenIssuerBody } from '../../schemas/token-analysis.js'
import type { MarketRead } from './market.js'
import type { RiskCode } from './risk-weights.js'
import type { SellRead } from './sell-check.js'
import type { TransferSimulationRead } from './transfer-simulation.js'
import type { AuthorityHoldersRead } from './authority-holders.js'
import { NATIVE_MINT_REASONS } from './native-mint.js'
import type { PartCheck } from './analysis-part.js'

/** The check each finding comes from; extension findings name their extension's type. */
const CHECK_OF: Record<RiskCode, string | readonly string[]> = {
  MINT_AUTHORITY_ACTIVE: 'mint_authority',
  FREEZE_AUTHORITY_ACTIVE: 'freeze_authority',
  TINY_SUPPLY: 'supply',
  PAUSED: 'extension:pausable',
  PAUSABLE: 'extension:pausable',
  NON_TRANSFERABLE: 'extension:non_transferable',
  PERMANENT_DELEGATE: 'extension:permanent_delegate',
  TRANSFER_FEE_HIGH: 'extension:transfer_fee',
  TRANSFER_FEE: 'extension:transfer_fee',
  TRANSFER_FEE_LOW: 'extension:transfer_fee',
  TRANSFER_FEE_MUTABLE: 'extension:transfer_fee',
  DEFAULT_ACCOUNT_STATE_FROZEN: 'extension:default_account_state',
  TRANSFER_HOOK: 'extension:transfer_hook',
  TRANSFER_HOOK_ENABLEABLE: 'extension:transfer_hook',
  CONFIDENTIAL_SUPPLY: 'extension:confidential_mint_burn',
  CONFIDENTIAL_TRANSFERS: 'extension:confidential_transfer',
  MINT_CLOSE_AUTHORITY: 'extension:mint_close_authority',
  UI_AMOUNT_ADJUSTABLE: ['extension:interest_bearing', 'extension:scaled_ui_amount'],
  PERMISSIONED_BURN: 'extension:permissioned_burn',
  UNKNOWN_EXTENSION: 'extension:unknown',
  MUTABLE_METADATA: 'metadata',
  METADATA_MISSING: 'metadata',
  LARGEST_HOLDER_MAJORITY: 'holders',
  LARGEST_HOLDER_HIGH: 'holders',
  TOP10_CONCENTRATED: 'holders',
  TOP10_HIGH: 'holders',
  FEW_HOLDERS: 'holders',
  HOLDERS_UNAVAILABLE: 'holders',
  CENTRAL_ISSUER: 'issuer',
  MARKET_UNAVAILABLE: 'market',
  LOW_LIQUIDITY: 'market',
  NEW_TOKEN: 'market',
  LOW_ORGANIC_SCORE: 'market',
  FLAGGED_BY_JUPITER: 'market',
  UNVERIFIED: 'market',
  NO_SELL_ROUTE: 'sell_quote',
  SELL_IMPACT_HIGH: 'sell_quote',
  SELL_CHECK_UNAVAILABLE: 'sell_quote',
  TRANSFER_SIMULATION_FAILED: 'transfer_simulation',
  // The launch, holder clusters and creator parts (launch/).
  EARLY_BUYERS_HOLD: 'launch',
  LAUNCH_BUNDLED: 'launch',
  HOLDER_CLUSTER: 'holder_clusters',
  HOLDER_CLUSTER_CREATOR: 'holder_clusters',
  SERIAL_CREATOR: 'creator',
  // The liquidity part (pools/).
  LP_UNLOCKED: 'liquidity',
  NO_POOL: 'liquidity'
}

export interface CheckFacts {
  tokenProgram: 'spl-token' | 'token-2022'
  extensions: TokenExtensionBody[]
  slot: number
  /** Wrapped SOL: its mint authority and supply checks do not apply. */
  nativeMint?: boolean
  /** The read of the powers' holders; absent: not read. */
  authorityHolders?: AuthorityHoldersRead
  holders: HolderDistributionBody
  issuer?: TokenIssuerBody
  market?: MarketRead
  sell?: SellRead
  transfer?: TransferSimulationRead
  /** The checks of the deeper parts (analysis-part.ts), after the core ones. */
  partChecks?: PartCheck[]
  risks: RiskBody[]
}

type Outcome = Pick<CheckEntryBody, 'status' | 'reason'>
type Timing = Pick<CheckEntryBody, 'slot' | 'read_at'>

const NO_PRICE_API = 'The analysis has no price API configured.'

function marketOutcome (market: MarketRead | undefined): Outcome & Timing {
  if (market === undefined) return { status: 'not_applicable', reason: NO_PRICE_API }
  if (market.state === 'listed') return { status: 'passed', read_at: market.readAt.toISOString() }
  if (market.state === 'not_listed') return { status: 'unavailable', reason: market.reason, read_at: market.readAt.toISOString() }
  return { status: market.state, reason: market.reason }
}

function sellOutcome (sell: SellRead | undefined): Outcome & Timing {
  if (sell === undefined) return { status: 'not_applicable', reason: NO_PRICE_API }
  if (sell.state !== 'quoted') return { status: sell.state, reason: sell.reason }
  const slot = sell.quotes.map(quote => quote.slot).find(value => value !== null)
  return { status: 'passed', read_at: sell.readAt.toISOString(), ...(slot == null ? {} : { slot }) }
}

function transferOutcome (transfer: TransferSimulationRead | undefined): Outcome & Timing {
  if (transfer === undefined) return { status: 'not_applicable', reason: 'The analysis does not simulate transfers here.' }
  // A failed transfer is flagged by its finding.
  if (transfer.state === 'simulated' || transfer.state === 'failed') return { status: 'passed', slot: transfer.slot }
  return { status: transfer.state, reason: transfer.reason }
}

/** Who holds each power: read in one getMultipleAccounts, at its own slot. */
function authorityHoldersEntry (read: AuthorityHoldersRead | undefined, slot: number): CheckEntryBody {
  const entry = (outcome: Outcome, at?: number): CheckEntryBody => ({ check: 'authority_holders', source: 'chain', ...(at === undefined ? {} : { slot: at }), ...outcome, risks: [] })
  if (read === undefined || read.state === 'none') return entry({ status: 'not_applicable', reason: 'Nobody holds any power over the token.' }, slot)
  if (read.state === 'unavailable') return entry({ status: 'unavailable', reason: `${read.reason} Each holder is reported as unknown and weighs as one key.` })
  return entry({ status: 'passed' }, read.slot)
}

/**
 * One entry per check the analysis ran, in a fixed order: what was read, from where, at which
 * slot or time, and the findings it produced. A check with findings is flagged whatever it was
 * before; every finding in `risks` belongs to exactly one listed check.
 */
export function listChecks (facts: CheckFacts): CheckEntryBody[] {
  const chain = (check: string, outcome: Outcome = { status: 'passed' }, slot = facts.slot): CheckEntryBody =>
    ({ check, source: 'chain', slot, ...outcome, risks: [] })
  const native = facts.nativeMint === true
  const entries: CheckEntryBody[] = [
    chain('mint_authority', native ? { status: 'not_applicable', reason: NATIVE_MINT_REASONS.mintAuthority } : undefined),
    chain('freeze_authority'),
    authorityHoldersEntry(facts.authorityHolders, facts.slot),
    chain('supply', native ? { status: 'not_applicable', reason: NATIVE_MINT_REASONS.supply } : undefined)
  ]
  if (facts.tokenProgram === 'spl-token') {
    entries.push(chain('extensions', { status: 'not_applicable', reason: 'SPL Token mints have no extensions.' }))
  } else if (facts.extensions.length === 0) {
    entries.push(chain('extensions'))
  } else {
    for (const type of new Set(facts.extensions.map(extension => extension.type))) entries.push(chain(`extension:${type}`))
  }
  entries.push(chain('metadata'))
  const { holders } = facts
  entries.push(holders.available ? chain('holders', { status: 'passed' }, holders.slot) : chain('holders', { status: 'unavailable', reason: holders.reason }))
  entries.push(chain('issuer'))
  entries.push({ check: 'market', source: 'jupiter', ...marketOutcome(facts.market), risks: [] })
  entries.push({ check: 'sell_quote', source: 'jupiter', ...sellOutcome(facts.sell), risks: [] })
  entries.push({ check: 'transfer_simulation', source: 'chain', ...transferOutcome(facts.transfer), risks: [] })
  for (const check of facts.partChecks ?? []) entries.push({ ...check, risks: [] })

  const byName = new Map(entries.map(entry => [entry.check, entry]))
  for (const risk of facts.risks) {
    const names = [CHECK_OF[risk.code as RiskCode]].flat()
    const entry = names.map(name => byName.get(name)).find(found => found !== undefined)
    if (entry === undefined) continue
    entry.risks.push(risk.code)
    // Unknowns keep their status; their finding says it weighs as unknown.
    if (entry.status === 'passed') entry.status = 'flagged'
  }
  return entries
}
