import { LAUNCH_RULES } from './launch/launch-rules.js'
import { LIQUIDITY_RULES } from './pools/liquidity-rules.js'

/**
 * The one table behind risk_score: every finding the analysis can report, its level, the points it
 * adds, and its sentence. risk_score is the sum of the points of the findings, clamped to 1..100.
 *
 * How the weights were chosen (anchored on what RugCheck, GoPlus and Jupiter Shield weigh heaviest):
 * - 20-40, danger: powers that take tokens or value from holders or stop them selling today, and a
 *   supply in one or ten hands. RugCheck's heaviest risks are the same (mint authority, permanent
 *   delegate, freeze authority, top-10 ownership); GoPlus and Jupiter Shield flag the rest
 *   (non-transferable, default-frozen accounts, high transfer fees). Two of them together already
 *   make a token high risk (50+).
 * - 10-20, warning: a power or condition that can hurt later or under conditions (transfer hook, fee
 *   or pause authority, a concentrated supply, few holders, and holder data that could not be read:
 *   unknown is not the same as safe).
 * - 2-5, info: context a careful buyer wants but that rarely hurts on its own (mutable metadata, a
 *   close authority usable only at zero supply, display-only amount scaling). CENTRAL_ISSUER is
 *   info with 10 points: the trust placed in a company stays a risk even when it is a known one.
 * - `issuerWeight` replaces `weight` for a known central issuer (known-issuers.ts): its powers are
 *   real and stay listed at the same level, but their use is bound by the issuer's published,
 *   regulated policies; what a holder relies on is spelled out once, in CENTRAL_ISSUER.
 *
 * Market and sale findings (from Jupiter, PRICE_API_URL), weighed on the same scale:
 * - NO_SELL_ROUTE and TRANSFER_SIMULATION_FAILED, danger 40 like NON_TRANSFERABLE: a holder
 *   cannot get out today, the very thing GoPlus and TokenSafe's honeypot checks look for.
 * - FLAGGED_BY_JUPITER 20, the heaviest warning: Jupiter's `audit.isSus` is an unexplained
 *   judgement, but from the router a sale goes through.
 * - SELL_IMPACT_HIGH and LOW_LIQUIDITY 15, like PAUSABLE: selling works but costs. 5% at $1,000
 *   is the line because a constant-product pool loses x/(R+x) of a sale of x into reserve R, so
 *   5% at $1,000 means about $19,000 on the USDC side: one ordinary holder's exit moves the
 *   price, and the loss is ten times the 0.5% slippage wallets allow by default, so plain sells
 *   fail. $10,000 of liquidity (both sides) is the same depth seen from the token API: a $1,000
 *   sale there is a fifth of the USDC side.
 * - NEW_TOKEN and LOW_ORGANIC_SCORE 10: conditions, not powers; most rug pulls and wash-traded
 *   launches are over within their first day, and a low organic score says the volume is not
 *   real buyers.
 * - MARKET_UNAVAILABLE and SELL_CHECK_UNAVAILABLE 10, as HOLDERS_UNAVAILABLE: unknown is not safe.
 * - UNVERIFIED info 3: most new legitimate tokens are unverified too.
 *
 * Templates name their evidence in {braces}; the analysis fills them in.
 */
export type RiskLevel = 'danger' | 'warning' | 'info'

interface RiskRule {
  level: RiskLevel
  weight: number
  issuerWeight?: number
  message: string
}

export const RISK_RULES = {
  NO_SELL_ROUTE: { level: 'danger', weight: 40, message: 'Jupiter finds no route selling {usd} of the token into USDC: a holder may be unable to sell it at all.' },
  TRANSFER_SIMULATION_FAILED: { level: 'danger', weight: 40, message: 'A plain transfer of the token from its largest account to a new account fails in simulation: {error}.' },
  PAUSED: { level: 'danger', weight: 40, message: 'The token is paused right now: no transfer, mint or burn goes through while it stays paused (pause authority: {authority}).' },
  NON_TRANSFERABLE: { level: 'danger', weight: 40, message: 'The token is non-transferable: holders can never sell or send it.' },
  PERMANENT_DELEGATE: { level: 'danger', weight: 35, issuerWeight: 5, message: 'Permanent delegate {delegate} can transfer or burn tokens out of any holder\'s account without the holder\'s signature.' },
  MINT_AUTHORITY_ACTIVE: { level: 'danger', weight: 30, issuerWeight: 5, message: 'Mint authority {authority} can create new tokens at any time, diluting every holder.' },
  TRANSFER_FEE_HIGH: { level: 'danger', weight: 30, message: 'Every transfer pays a fee of {fee}.' },
  LARGEST_HOLDER_MAJORITY: { level: 'danger', weight: 30, message: 'One token account, {address}, holds {percent} of the supply.' },
  FREEZE_AUTHORITY_ACTIVE: { level: 'danger', weight: 25, issuerWeight: 5, message: 'Freeze authority {authority} can freeze any token account, leaving its holder unable to sell or move the tokens.' },
  DEFAULT_ACCOUNT_STATE_FROZEN: { level: 'danger', weight: 25, issuerWeight: 5, message: 'New token accounts start frozen: a holder can use the token only after the freeze authority thaws the account.' },
  TOP10_CONCENTRATED: { level: 'danger', weight: 20, message: 'The ten largest token accounts hold {percent} of the supply.' },
  FLAGGED_BY_JUPITER: { level: 'warning', weight: 20, message: 'Jupiter flags the token as suspicious (audit.isSus), without saying why.' },
  TRANSFER_HOOK: { level: 'warning', weight: 20, issuerWeight: 5, message: 'Every transfer calls program {program}, which can refuse any transfer, sales included; {authority} can replace that program.' },
  SELL_IMPACT_HIGH: { level: 'warning', weight: 15, message: 'Selling $1,000 of the token into USDC moves its price by {impact}%: a sale of that size loses about {loss}.' },
  LOW_LIQUIDITY: { level: 'warning', weight: 15, message: 'Jupiter counts {liquidity} of liquidity for the token, under {threshold}: even small sales move its price.' },
  PAUSABLE: { level: 'warning', weight: 15, issuerWeight: 5, message: 'Pause authority {authority} can halt every transfer, mint and burn of the token at any time.' },
  TRANSFER_FEE: { level: 'warning', weight: 15, message: 'Every transfer pays a fee of {fee}.' },
  LARGEST_HOLDER_HIGH: { level: 'warning', weight: 15, message: 'One token account, {address}, holds {percent} of the supply.' },
  CONFIDENTIAL_SUPPLY: { level: 'warning', weight: 10, message: 'Tokens can be minted and burned confidentially, so the public supply may not be the real supply.' },
  TRANSFER_FEE_MUTABLE: { level: 'warning', weight: 10, issuerWeight: 3, message: 'Transfer fee authority {authority} can raise the fee, up to 100% of each transfer.' },
  TOP10_HIGH: { level: 'warning', weight: 10, message: 'The ten largest token accounts hold {percent} of the supply.' },
  FEW_HOLDERS: { level: 'warning', weight: 10, message: 'Token accounts holding any of the token: only {count}.' },
  TINY_SUPPLY: { level: 'warning', weight: 10, message: 'The total supply is {supply} tokens, less than one whole token: there is next to nothing to hold or trade.' },
  NEW_TOKEN: { level: 'warning', weight: 10, message: 'The token\'s first pool was created {age} ago ({created}): it has traded for less than a day.' },
  LOW_ORGANIC_SCORE: { level: 'warning', weight: 10, message: 'Jupiter rates the token\'s organic score low ({score} of 100): little of its trading comes from real, distinct buyers.' },
  MARKET_UNAVAILABLE: { level: 'warning', weight: 10, message: '{reason} Liquidity, age and trading risks are unknown, not absent.' },
  SELL_CHECK_UNAVAILABLE: { level: 'warning', weight: 10, message: '{reason} Whether the token can be sold through Jupiter is unknown, not known to be possible.' },
  HOLDERS_UNAVAILABLE: { level: 'warning', weight: 10, message: '{reason} Concentration risks are unknown, not absent.' },
  UNKNOWN_EXTENSION: { level: 'warning', weight: 10, message: 'The mint has Token-2022 extension type {type}, which this service cannot decode; its effect is unknown.' },
  CENTRAL_ISSUER: { level: 'info', weight: 10, message: '{asset} is issued by {issuer}. {trust}' },
  TRANSFER_HOOK_ENABLEABLE: { level: 'info', weight: 5, issuerWeight: 2, message: 'Transfer hook authority {authority} can attach a program to every transfer later.' },
  TRANSFER_FEE_LOW: { level: 'info', weight: 5, message: 'Every transfer pays a fee of {fee}.' },
  CONFIDENTIAL_TRANSFERS: { level: 'info', weight: 5, message: 'Balances and transfers can be encrypted, so holder figures count public balances only.' },
  MUTABLE_METADATA: { level: 'info', weight: 5, issuerWeight: 1, message: '{authority} can change the token\'s name, symbol and image.' },
  UNVERIFIED: { level: 'info', weight: 3, message: 'Jupiter has not verified the token (isVerified is false): nothing but its mint address tells it apart from look-alikes.' },
  MINT_CLOSE_AUTHORITY: { level: 'info', weight: 3, message: 'Close authority {authority} can close the mint, once its whole supply is burned.' },
  METADATA_MISSING: { level: 'info', weight: 3, message: 'No on-chain metadata (name, symbol) was found, so nothing on chain tells this token apart from look-alikes.' },
  UI_AMOUNT_ADJUSTABLE: { level: 'info', weight: 2, message: '{authority} can change how amounts are displayed ({mechanism}); balances in base units do not change.' },
  PERMISSIONED_BURN: { level: 'info', weight: 2, message: 'Every burn needs the signature of {authority}: holders cannot burn their own tokens.' },
  // The launch, holder clusters and creator parts (launch/launch-rules.ts).
  ...LAUNCH_RULES,
  // The liquidity part (pools/liquidity-rules.ts).
  ...LIQUIDITY_RULES
} as const satisfies Record<string, RiskRule>

export type RiskCode = keyof typeof RISK_RULES

/** Grades of the findings that depend on a size. Shares in basis points of the supply. */
export const THRESHOLDS = {
  transferFeeHighBasisPoints: 1000,
  transferFeeBasisPoints: 100,
  largestHolderMajorityBasisPoints: 5000,
  largestHolderHighBasisPoints: 2000,
  top10ConcentratedBasisPoints: 9000,
  top10HighBasisPoints: 5000,
  fewHolders: 10,
  /** Price impact, in percent, of the $1,000 sale from which SELL_IMPACT_HIGH is reported. */
  sellImpactHighPct: 5,
  /** Jupiter's `liquidity` in USD under which LOW_LIQUIDITY is reported. */
  lowLiquidityUsd: 10_000,
  /** Age of the first pool under which NEW_TOKEN is reported. */
  newTokenMs: 24 * 60 * 60 * 1000
} as const

export const MIN_SCORE = 1
export const MAX_SCORE = 100

/** One risk found in a token: its rule, the words its message is filled with, and who holds the power it is about. */
export interface Finding {
  code: RiskCode
  params: Record<string, string | number>
  /** Addresses holding the power the finding is about; the heaviest holder's kind sets the weight. */
  holders?: string[]
}
