import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { BaseUnits, SolanaAddress } from './common.js'
import { ref } from './ref.js'
import { NETWORK_NAMES } from './networks.js'
import { TOKEN_ANALYSIS_EXAMPLE } from './token-analysis-example.js'
import { Creator, HolderClusters, Launch } from './token-analysis-launch.js'
import { Liquidity } from './token-analysis-liquidity.js'
import { BondingCurve } from './token-analysis-curve.js'

const Address = (description: string) => Type.String({ pattern: SolanaAddress.pattern, description })
// BaseUnits without its `examples`, which OpenAPI 3.0 refuses inside the anyOf of TokenExtension.
const Amount = Type.String({ pattern: BaseUnits.pattern, description: BaseUnits.description })
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
/** An optional authority of the Token-2022 program: null when nobody holds it. */
const Authority = (description: string) => Nullable(Address(`${description}; null when nobody holds it`))
const Share = (description: string) => Type.Number({
  minimum: 0,
  maximum: 1,
  description: `${description}, as a fraction of the supply from 0 to 1 (0.25 = 25%), computed exactly and rounded to 6 decimals`
})

export const Risk = Type.Object({
  code: Type.String({ description: 'stable machine-readable risk code (see the weight table in the README)', examples: ['MINT_AUTHORITY_ACTIVE'] }),
  level: Type.Union([Type.Literal('danger'), Type.Literal('warning'), Type.Literal('info')], { description: 'danger: can take holders\' tokens or value; warning: a power or condition to watch; info: context' }),
  weight: Type.Integer({ minimum: 0, description: 'points this finding adds to risk_score' }),
  message: Type.String({ description: 'one plain sentence naming the finding and its evidence' })
}, { $id: 'Risk', additionalProperties: false, description: 'One finding behind the risk score.' })

export const Holder = Type.Object({
  address: Address('token account'),
  amount: BaseUnits,
  share: Share('balance of this account')
}, { $id: 'Holder', additionalProperties: false, description: 'A token account among the largest holders.' })

export const HolderDistribution = Type.Object({
  available: Type.Boolean({ description: 'false when the RPC node refused or failed to list the largest accounts' }),
  reason: Type.Optional(Type.String({ description: 'why holder data is unavailable (present only when available is false)' })),
  slot: Type.Optional(Type.Integer({ description: 'slot at which the largest accounts were read' })),
  largest_share: Nullable(Share('balance of the largest token account')),
  top10_share: Nullable(Share('combined balance of the ten largest token accounts')),
  holder_count: Nullable(Type.Integer({
    minimum: 0,
    description: 'number of token accounts with a balance when fewer than 20 exist (the RPC lists at most 20); null when 20 or more do, or when unavailable'
  })),
  accounts: Type.Array(ref(Holder), { maxItems: 20, description: 'the largest token accounts with a balance, largest first (empty when unavailable)' }),
  clusters: Type.Optional(HolderClusters)
}, {
  $id: 'HolderDistribution',
  additionalProperties: false,
  description: 'Concentration of the supply among token accounts (getTokenLargestAccounts and getTokenSupply). Pool vaults and lockers are token accounts too: a large share is evidence to check, not proof of a whale.'
})

export const TransferFeeSchedule = Type.Object({
  epoch: Type.Integer({ minimum: 0, description: 'first epoch where this fee applies' }),
  basis_points: Type.Integer({ minimum: 0, maximum: 10_000, description: 'fee in basis points of the amount transferred (100 = 1%)' }),
  maximum_fee: BaseUnits
}, { $id: 'TransferFeeSchedule', additionalProperties: false, description: 'One of the two fee settings of the transfer-fee extension.' })

export const TokenMetadataEntry = Type.Object({
  key: Type.String(),
  value: Type.String()
}, { $id: 'TokenMetadataEntry', additionalProperties: false })

const Ext = <T extends string, P extends Record<string, TSchema>>(type: T, description: string, properties: P) =>
  Type.Object({ type: Type.Literal(type), ...properties }, { additionalProperties: false, description })

/** Token-2022 mint extensions, with the settings that matter to a holder. */
export const TokenExtension = Type.Union([
  Ext('transfer_fee', 'A fee is withheld from every transfer. The older fee applies before the newer fee\'s epoch, the newer from it on.', {
    older_fee: ref(TransferFeeSchedule),
    newer_fee: ref(TransferFeeSchedule),
    config_authority: Authority('can change the fee (up to 100%)'),
    withdraw_withheld_authority: Authority('can collect the withheld fees'),
    withheld_amount: Amount
  }),
  Ext('permanent_delegate', 'The delegate can transfer or burn tokens from any account of this mint.', {
    delegate: Authority('the permanent delegate')
  }),
  Ext('transfer_hook', 'Every transfer also calls a program, which can refuse it.', {
    program_id: Authority('hook program called on every transfer'),
    authority: Authority('can replace the hook program')
  }),
  Ext('non_transferable', 'Tokens can never be transferred (soulbound).', {}),
  Ext('default_account_state', 'State new token accounts start in.', {
    state: Type.Union([Type.Literal('uninitialized'), Type.Literal('initialized'), Type.Literal('frozen')])
  }),
  Ext('mint_close_authority', 'The mint can be closed once its supply is zero.', {
    close_authority: Authority('can close the mint')
  }),
  Ext('pausable', 'Transfers, mints and burns can be paused.', {
    authority: Authority('can pause and resume'),
    paused: Type.Boolean({ description: 'true when the token is paused right now' })
  }),
  Ext('metadata_pointer', 'Where the token metadata lives.', {
    authority: Authority('can move the pointer'),
    metadata_address: Authority('account holding the metadata')
  }),
  Ext('token_metadata', 'Metadata stored in the mint account itself.', {
    update_authority: Authority('can change the metadata'),
    name: Type.String(),
    symbol: Type.String(),
    uri: Type.String(),
    additional_metadata: Type.Array(ref(TokenMetadataEntry))
  }),
  Ext('interest_bearing', 'Displayed (UI) amounts grow or shrink with an interest rate; balances in base units do not change.', {
    rate_authority: Authority('can change the rate'),
    current_rate_basis_points: Type.Integer({ description: 'annual rate, signed basis points' }),
    pre_update_average_rate_basis_points: Type.Integer(),
    initialization_timestamp: Type.Integer({ description: 'Unix seconds' }),
    last_update_timestamp: Type.Integer({ description: 'Unix seconds' })
  }),
  Ext('scaled_ui_amount', 'Displayed (UI) amounts are base units times a multiplier the authority can change.', {
    authority: Authority('can change the multiplier'),
    multiplier: Type.Number(),
    new_multiplier: Type.Number(),
    new_multiplier_effective_timestamp: Type.Integer({ description: 'Unix seconds' })
  }),
  Ext('confidential_transfer', 'Balances and transfers can be encrypted.', {
    authority: Authority('approves accounts and changes the configuration'),
    auto_approve_new_accounts: Type.Boolean(),
    auditor_elgamal_pubkey: Authority('auditor key that can decrypt every confidential amount')
  }),
  Ext('confidential_transfer_fee', 'Transfer fees on confidential transfers.', {
    authority: Authority('can change the withheld-fee encryption key'),
    harvest_to_mint_enabled: Type.Boolean()
  }),
  Ext('confidential_mint_burn', 'Tokens can be minted and burned confidentially: the public supply does not count them.', {}),
  Ext('group_pointer', 'Where the token group configuration lives.', {
    authority: Authority('can move the pointer'),
    group_address: Authority('account holding the group')
  }),
  Ext('token_group', 'This mint is a collection (group) of tokens.', {
    update_authority: Authority('can change the group'),
    size: Type.Integer({ minimum: 0 }),
    max_size: Type.Integer({ minimum: 0 })
  }),
  Ext('group_member_pointer', 'Where the group membership lives.', {
    authority: Authority('can move the pointer'),
    member_address: Authority('account holding the membership')
  }),
  Ext('token_group_member', 'This mint belongs to a group.', {
    group: Address('the group mint'),
    member_number: Type.Integer({ minimum: 0 })
  }),
  Ext('permissioned_burn', 'Burning needs the signature of an authority.', {
    authority: Authority('must sign every burn')
  }),
  Ext('unknown', 'An extension this service cannot decode.', {
    extension_type: Type.Integer({ minimum: 0, maximum: 65_535, description: 'Token-2022 extension type number' })
  })
], { $id: 'TokenExtension', description: 'A Token-2022 mint extension and its settings, tagged by `type`.' })

export const TokenMetadata = Type.Object({
  source: Type.Union([Type.Literal('token-2022'), Type.Literal('metaplex')], { description: 'the token-metadata extension of the mint, or the Metaplex metadata account' }),
  address: Address('account the metadata was read from (the mint itself for token-2022)'),
  name: Type.String(),
  symbol: Type.String(),
  uri: Type.String(),
  update_authority: Authority('can change name, symbol and uri'),
  mutable: Type.Boolean({ description: 'true when the metadata can still be changed: by its update authority, or by moving the Token-2022 metadata pointer' })
}, { $id: 'TokenMetadata', additionalProperties: false, description: 'On-chain name, symbol and URI of the token.' })

export const TokenIssuer = Type.Object({
  name: Type.String({ description: 'company that issues the token', examples: ['Circle'] }),
  asset: Type.String({ description: 'what the token is', examples: ['USDC'] }),
  trust_assumption: Type.String({ description: 'what a holder relies on the issuer for (the same sentence for every issuer)' }),
  source: Type.String({ description: 'where the issuer publishes this mint address' })
}, { $id: 'TokenIssuer', additionalProperties: false, description: 'Known central issuer of a stablecoin, identified by mint address.' })

export const AUTHORITY_POWERS = [
  'mint', 'freeze', 'permanent_delegate', 'transfer_fee_config', 'transfer_fee_withdraw', 'transfer_hook', 'metadata_update',
  'metadata_pointer', 'pause', 'close', 'confidential_transfer', 'scaled_ui_amount', 'interest_rate', 'permissioned_burn'
] as const
export const AUTHORITY_KINDS = ['wallet', 'token_multisig', 'squads_multisig', 'program', 'executable', 'unknown'] as const

export const AuthorityPower = Type.Object({
  power: Type.Union(AUTHORITY_POWERS.map(power => Type.Literal(power)), {
    description: 'the power: mint, freeze, permanent_delegate, transfer_fee_config and transfer_fee_withdraw (transfer-fee extension), transfer_hook (can replace the hook program), metadata_update, metadata_pointer, pause, close (mint close), confidential_transfer, scaled_ui_amount, interest_rate, permissioned_burn'
  }),
  address: Address('the address holding the power'),
  kind: Type.Union(AUTHORITY_KINDS.map(kind => Type.Literal(kind)), {
    description: 'who that address is: wallet (on the ed25519 curve: one private key), token_multisig (an SPL Token or Token-2022 multisig account: `threshold` of `signers`), squads_multisig (an account of the Squads v3 or v4 program), program (off the curve: only a program can sign; `program_name` when known), executable (a program account), unknown (its account could not be read)'
  }),
  evidence: Type.String({ description: 'what the kind was read from, in one sentence' }),
  account_owner: Nullable(Address('program owning the account at the address; null when no account exists there or it could not be read')),
  program_name: Type.Optional(Type.String({ description: 'the program that signs for the address or owns its account, when the account or a known derivation says so' })),
  threshold: Type.Optional(Type.Integer({ minimum: 0, description: 'multisigs: signatures needed' })),
  signers: Type.Optional(Type.Array(Address('a signer'), { description: 'multisigs: the keys that can sign (Squads: members with the vote permission)' }))
}, { $id: 'AuthorityPower', additionalProperties: false, description: 'One power over the token and who holds it, read from the holder\'s account on chain.' })

export const TokenAuthorities = Type.Object({
  mint_authority_disabled: Type.Boolean({ description: 'true when nobody can mint more tokens' }),
  freeze_authority_disabled: Type.Boolean({ description: 'true when nobody can freeze token accounts' }),
  mint_authority: Type.Optional(Address('who can mint; present only when not disabled')),
  freeze_authority: Type.Optional(Address('who can freeze accounts; present only when not disabled')),
  powers: Type.Array(ref(AuthorityPower), { description: 'every live power (mint and freeze authority, the extensions\' authorities, the metadata update authority), each with the kind of its holder and the evidence; the weights of their findings depend on the kind' })
}, { $id: 'TokenAuthorities', additionalProperties: false })

const Usd = (description: string) => Nullable(Type.Number({ description: `${description}, in USD; null when the source gives none` }))
const Count = (description: string) => Nullable(Type.Integer({ minimum: 0, description: `${description}; null when the source gives none` }))
const ReadAt = Type.String({ format: 'date-time', description: 'when the answer was received from the source (ISO 8601, UTC)' })

export const MarketStats = Type.Object({
  volume_usd: Usd('traded volume over the window, buys plus sells (Jupiter buyVolume + sellVolume)'),
  buy_volume_usd: Usd('bought volume (Jupiter buyVolume)'),
  sell_volume_usd: Usd('sold volume (Jupiter sellVolume)'),
  price_change_pct: Nullable(Type.Number({ description: 'price change over the window in percent (Jupiter priceChange)' })),
  buys: Count('number of buys (Jupiter numBuys)'),
  sells: Count('number of sells (Jupiter numSells)'),
  traders: Count('number of distinct traders (Jupiter numTraders)')
}, { $id: 'MarketStats', additionalProperties: false, description: 'Trading over the last 24 hours, from Jupiter\'s stats24h.' })

export const MarketAudit = Type.Object({
  top_holders_percentage: Nullable(Type.Number({ description: 'percent of the supply held by the top holders as Jupiter counts them (audit.topHoldersPercentage)' })),
  dev_mints: Count('tokens the developer has launched, as Jupiter counts them (audit.devMints)'),
  is_sus: Nullable(Type.Boolean({ description: 'true when Jupiter flags the token as suspicious (audit.isSus); null when Jupiter says nothing' }))
}, { $id: 'MarketAudit', additionalProperties: false, description: 'Jupiter\'s own audit flags, as reported (not checked by this service).' })

export const Market = Type.Object({
  available: Type.Boolean({ description: 'false when no market data could be read: the source failed, timed out, does not list the mint, or serves another cluster' }),
  reason: Type.Optional(Type.String({ description: 'why market data is unavailable (present only when available is false)' })),
  source: Type.Literal('jupiter-tokens-v2', { description: 'Jupiter\'s token API' }),
  read_at: Type.Optional(ReadAt),
  usd_price: Type.Optional(Usd('price of one token (usdPrice)')),
  liquidity_usd: Type.Optional(Usd('liquidity across the pools Jupiter routes through (liquidity)')),
  holder_count: Type.Optional(Count('holders as Jupiter counts them (holderCount)')),
  mcap_usd: Type.Optional(Usd('market capitalisation, circulating supply times price (mcap)')),
  fdv_usd: Type.Optional(Usd('fully diluted valuation, total supply times price (fdv)')),
  organic_score: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100, description: 'Jupiter\'s 0-100 score of how much trading is by real, distinct wallets (organicScore)' }))),
  organic_score_label: Type.Optional(Nullable(Type.String({ description: 'high, medium or low (organicScoreLabel)' }))),
  verified: Type.Optional(Type.Boolean({ description: 'true when Jupiter has verified the token (isVerified)' })),
  tags: Type.Optional(Type.Array(Type.String(), { description: 'Jupiter\'s tags (tags), e.g. verified, strict, lst' })),
  first_pool_created_at: Type.Optional(Nullable(Type.String({ description: 'when the token\'s first pool was created (firstPool.createdAt): the age of its trading' }))),
  stats_24h: Type.Optional(Nullable(ref(MarketStats))),
  audit: Type.Optional(Nullable(ref(MarketAudit)))
}, {
  $id: 'Market',
  additionalProperties: false,
  description: 'Market data of the token from Jupiter\'s token API, each field named after its source field in the README. Jupiter lists mainnet-beta tokens only.'
})

export const SellQuote = Type.Object({
  usd_value: Type.Number({ description: 'USD value of the tokens sold (100 or 1000)' }),
  in_amount: BaseUnits,
  route_found: Type.Boolean({ description: 'false when Jupiter found no route selling this amount into USDC' }),
  out_amount: Nullable(Amount),
  out_usd: Nullable(Type.Number({ description: 'USDC received, in whole USDC; null without a route' })),
  price_impact_pct: Nullable(Type.Number({ description: 'price impact of the sale in percent (Jupiter priceImpactPct is a fraction; 0.05 there is 5 here)' })),
  venues: Type.Array(Type.String(), { description: 'the route\'s venues (routePlan[].swapInfo.label), in route order' }),
  slot: Nullable(Type.Integer({ description: 'slot of the quote (contextSlot)' }))
}, { $id: 'SellQuote', additionalProperties: false, description: 'One Jupiter quote (swap API /quote, ExactIn) selling the token into USDC.' })

export const SellCheck = Type.Object({
  available: Type.Boolean({ description: 'false when no quote could be asked or read (see reason)' }),
  reason: Type.Optional(Type.String({ description: 'why the sell check is unavailable or not applicable' })),
  source: Type.Literal('jupiter-swap-v1-quote', { description: 'Jupiter\'s swap quote API' }),
  read_at: Type.Optional(ReadAt),
  quotes: Type.Array(ref(SellQuote), { description: 'the sale of $100 and of $1,000 of the token (empty when unavailable)' })
}, { $id: 'SellCheck', additionalProperties: false, description: 'Can a holder sell, and at what loss: Jupiter quotes selling the token into USDC.' })

export const TransferSimulation = Type.Object({
  available: Type.Boolean({ description: 'false when no simulation could be run (see reason): no holder, no owner able to pay the simulated fee, a transfer hook, or the RPC failed' }),
  reason: Type.Optional(Type.String()),
  slot: Type.Optional(Type.Integer({ description: 'slot the simulation ran at' })),
  from_account: Type.Optional(Address('token account the transfer was simulated from (the largest)')),
  amount: Type.Optional(Amount),
  succeeded: Type.Optional(Type.Boolean({ description: 'true when the transfer went through in simulation' })),
  error: Type.Optional(Type.String({ description: 'the program\'s error when it did not (frozen account, non-transferable, paused, a refusing program)' })),
  received: Type.Optional(Amount),
  fee_charged: Type.Optional(Amount)
}, {
  $id: 'TransferSimulation',
  additionalProperties: false,
  description: 'Can the token move at all, independent of any DEX. A plain transfer (transferChecked) from the largest account to a new account, simulated on chain with simulateTransaction (sigVerify false, replaceRecentBlockhash); `received` and `fee_charged` are in base units.'
})

export const CheckEntry = Type.Object({
  check: Type.String({ description: 'what was checked: mint_authority, freeze_authority, authority_holders (who holds each power), extension:<type>, metadata, supply, holders, issuer, market, sell_quote, transfer_simulation, launch, holder_clusters, creator, liquidity, bonding_curve', examples: ['holders'] }),
  status: Type.Union([Type.Literal('passed'), Type.Literal('flagged'), Type.Literal('unavailable'), Type.Literal('not_applicable')], {
    description: 'passed: read, nothing found; flagged: read, see `risks`; unavailable: could not be read (see reason); not_applicable: does not apply to this token or cluster'
  }),
  source: Type.Union([Type.Literal('chain'), Type.Literal('jupiter')], { description: 'chain: read from the Solana cluster named in `network`; jupiter: Jupiter\'s token API or swap quote API' }),
  slot: Type.Optional(Type.Integer({ description: 'slot at which it was read (chain checks, and Jupiter quotes)' })),
  read_at: Type.Optional(ReadAt),
  risks: Type.Array(Type.String(), { description: 'codes of the findings of this check (in `risks`)' }),
  reason: Type.Optional(Type.String({ description: 'why unavailable or not applicable' }))
}, { $id: 'CheckEntry', additionalProperties: false, description: 'One check the analysis ran, and what came of it.' })

export const TokenAnalysis = Type.Object({
  risk_score: Type.Integer({ minimum: 1, maximum: 100, description: 'sum of the weights of `risks`, clamped to 1..100; 100 is the riskiest' }),
  authorities: ref(TokenAuthorities),
  summary: Type.String({ description: 'plain sentences, the main risks first' }),
  mint: Address('the analysed mint'),
  network: Type.Union(NETWORK_NAMES.map(n => Type.Literal(n)), { description: 'Solana cluster the mint was read from (the merchant\'s data network)', examples: ['mainnet-beta'] }),
  token_program: Type.Union([
    Type.Literal('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
    Type.Literal('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb')
  ], { description: 'SPL Token or Token-2022 program that owns the mint' }),
  decimals: Type.Integer({ minimum: 0, maximum: 255 }),
  supply: BaseUnits,
  holders: ref(HolderDistribution),
  extensions: Type.Array(ref(TokenExtension), { description: 'Token-2022 extensions of the mint, in account order (empty for SPL Token mints)' }),
  metadata: Nullable(ref(TokenMetadata)),
  issuer: Type.Optional(ref(TokenIssuer)),
  market: ref(Market),
  sell_check: ref(SellCheck),
  transfer_simulation: ref(TransferSimulation),
  launch: Type.Optional(Launch),
  creator: Type.Optional(Creator),
  liquidity: Type.Optional(Liquidity),
  bonding_curve: Type.Optional(BondingCurve),
  checks: Type.Array(ref(CheckEntry), { description: 'every check run, in a fixed order, with its outcome and source: what was checked and what could not be' }),
  risks: Type.Array(ref(Risk), { description: 'every finding, heaviest first' }),
  slot: Type.Integer({ description: 'slot at which the mint (and its metadata) was read; the same mint at the same slot gets the same answer' })
}, {
  $id: 'TokenAnalysis',
  additionalProperties: false,
  description: 'Security analysis of a token mint from Solana RPC data and a simulated transfer, with market data and sell quotes from Jupiter\'s token and swap quote APIs when available, and `checks` saying what was checked.',
  // What a buyer gets, for the document and the bazaar discovery metadata of the 402: a real analysis
  // of the real mainnet fixtures, written by scripts/analysis-examples.ts (checked by the tests).
  examples: [TOKEN_ANALYSIS_EXAMPLE]
})

export type RiskBody = Static<typeof Risk>
export type HolderDistributionBody = Static<typeof HolderDistribution>
export type TokenExtensionBody = Static<typeof TokenExtension>
export type TokenMetadataBody = Static<typeof TokenMetadata>
export type TokenIssuerBody = Static<typeof TokenIssuer>
export type AuthorityPowerBody = Static<typeof AuthorityPower>
export type TokenAnalysisBody = Static<typeof TokenAnalysis>
export type MarketBody = Static<typeof Market>
export type SellCheckBody = Static<typeof SellCheck>
export type SellQuoteBody = Static<typeof SellQuote>
export type CheckEntryBody = Static<typeof CheckEntry>
export type TransferSimulationBody = Static<typeof TransferSimulation>

/** `:address` of GET /api/analyze-token/:address and `address` of the analyze_token MCP tool. */
export const MintToAnalyze = Type.String({ pattern: SolanaAddress.pattern, description: 'mint address (base58, 32 bytes)', examples: SolanaAddress.examples })

/** Path parameters of GET /api/analyze-token/:address: the route's schema and its bazaar discovery metadata. */
export const AnalyzeTokenParams = Type.Object({ address: MintToAnalyze })
