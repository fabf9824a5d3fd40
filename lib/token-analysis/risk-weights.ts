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
  PAUSED: { level: 'danger', weight: 40, message: 'The token is paused right now: no transfer, mint or burn goes through while it stays paused (pause authority: {authority}).' },
  NON_TRANSFERABLE: { level: 'danger', weight: 40, message: 'The token is non-transferable: holders can never sell or send it.' },
  PERMANENT_DELEGATE: { level: 'danger', weight: 35, issuerWeight: 5, message: 'Permanent delegate {delegate} can transfer or burn tokens out of any holder\'s account without the holder\'s signature.' },
  MINT_AUTHORITY_ACTIVE: { level: 'danger', weight: 30, issuerWeight: 5, message: 'Mint authority {authority} can create new tokens at any time, diluting every holder.' },
  TRANSFER_FEE_HIGH: { level: 'danger', weight: 30, message: 'Every transfer pays a fee of {fee}.' },
  LARGEST_HOLDER_MAJORITY: { level: 'danger', weight: 30, message: 'One token account, {address}, holds {percent} of the supply.' },
  FREEZE_AUTHORITY_ACTIVE: { level: 'danger', weight: 25, issuerWeight: 5, message: 'Freeze authority {authority} can freeze any token account, leaving its holder unable to sell or move the tokens.' },
  DEFAULT_ACCOUNT_STATE_FROZEN: { level: 'danger', weight: 25, issuerWeight: 5, message: 'New token accounts start frozen: a holder can use the token only after the freeze authority thaws the account.' },
  TOP10_CONCENTRATED: { level: 'danger', weight: 20, message: 'The ten largest token accounts hold {percent} of the supply.' },
  TRANSFER_HOOK: { level: 'warning', weight: 20, issuerWeight: 5, message: 'Every transfer calls program {program}, which can refuse any transfer, sales included; {authority} can replace that program.' },
  PAUSABLE: { level: 'warning', weight: 15, issuerWeight: 5, message: 'Pause authority {authority} can halt every transfer, mint and burn of the token at any time.' },
  TRANSFER_FEE: { level: 'warning', weight: 15, message: 'Every transfer pays a fee of {fee}.' },
  LARGEST_HOLDER_HIGH: { level: 'warning', weight: 15, message: 'One token account, {address}, holds {percent} of the supply.' },
  CONFIDENTIAL_SUPPLY: { level: 'warning', weight: 10, message: 'Tokens can be minted and burned confidentially, so the public supply may not be the real supply.' },
  TRANSFER_FEE_MUTABLE: { level: 'warning', weight: 10, issuerWeight: 3, message: 'Transfer fee authority {authority} can raise the fee, up to 100% of each transfer.' },
  TOP10_HIGH: { level: 'warning', weight: 10, message: 'The ten largest token accounts hold {percent} of the supply.' },
  FEW_HOLDERS: { level: 'warning', weight: 10, message: 'Only {count} token accounts hold any of the token.' },
  TINY_SUPPLY: { level: 'warning', weight: 10, message: 'The total supply is {supply} tokens, less than one whole token: there is next to nothing to hold or trade.' },
  HOLDERS_UNAVAILABLE: { level: 'warning', weight: 10, message: '{reason} Concentration risks are unknown, not absent.' },
  UNKNOWN_EXTENSION: { level: 'warning', weight: 10, message: 'The mint has Token-2022 extension type {type}, which this service cannot decode; its effect is unknown.' },
  CENTRAL_ISSUER: { level: 'info', weight: 10, message: '{asset} is issued by {issuer}. {trust}' },
  TRANSFER_HOOK_ENABLEABLE: { level: 'info', weight: 5, issuerWeight: 2, message: 'Transfer hook authority {authority} can attach a program to every transfer later.' },
  TRANSFER_FEE_LOW: { level: 'info', weight: 5, message: 'Every transfer pays a fee of {fee}.' },
  CONFIDENTIAL_TRANSFERS: { level: 'info', weight: 5, message: 'Balances and transfers can be encrypted, so holder figures count public balances only.' },
  MUTABLE_METADATA: { level: 'info', weight: 5, issuerWeight: 1, message: '{authority} can change the token\'s name, symbol and image.' },
  MINT_CLOSE_AUTHORITY: { level: 'info', weight: 3, message: 'Close authority {authority} can close the mint, once its whole supply is burned.' },
  METADATA_MISSING: { level: 'info', weight: 3, message: 'No on-chain metadata (name, symbol) was found, so nothing on chain tells this token apart from look-alikes.' },
  UI_AMOUNT_ADJUSTABLE: { level: 'info', weight: 2, message: '{authority} can change how amounts are displayed ({mechanism}); balances in base units do not change.' },
  PERMISSIONED_BURN: { level: 'info', weight: 2, message: 'Every burn needs the signature of {authority}: holders cannot burn their own tokens.' }
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
  fewHolders: 10
} as const

export const MIN_SCORE = 1
export const MAX_SCORE = 100
