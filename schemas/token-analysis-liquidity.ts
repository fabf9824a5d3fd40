import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { SolanaAddress } from './common.js'

// The liquidity part of the analysis (lib/token-analysis/pools/).
const Address = (description: string) => Type.String({ pattern: SolanaAddress.pattern, description })
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const Amount = (description: string) => Nullable(Type.String({ pattern: '^[0-9]+$', description: `${description}, in base units` }))
const Share = (description: string) => Nullable(Type.Number({ minimum: 0, maximum: 1, description: `${description}, 0 to 1, exact and rounded to 6 decimals; null when unknown (see reason)` }))

export const PoolLock = Type.Object({
  program: Address('the locker program'),
  account: Address('the LP token account it holds'),
  amount: Type.String({ pattern: '^[0-9]+$', description: 'LP held, in base units' }),
  unlock_at: Nullable(Type.Integer({ description: 'unix seconds the lock ends; null when not decoded' }))
}, { additionalProperties: false })

export const Pool = Type.Object({
  address: Address('the pool account'),
  program: Address('its program'),
  dex: Type.String({ description: 'the program\'s name, e.g. Raydium CPMM' }),
  base_mint: Address('the analysed mint'),
  quote_mint: Address('the other side'),
  base_reserve: Amount('tokens of the analysed mint in the pool\'s vault, fees owed deducted'),
  quote_reserve: Amount('tokens of the other side in its vault, fees owed deducted'),
  quote_symbol: Nullable(Type.String({ description: 'symbol of the quote mint when it is a well-known token' })),
  liquidity_usd: Nullable(Type.Number({ description: 'both sides in USD, when a price is known' })),
  lp_model: Type.Union([Type.Literal('lp_token'), Type.Literal('concentrated'), Type.Literal('bin')], { description: 'lp_token: fungible LP tokens; concentrated: positions (NFTs or accounts); bin: bin positions' }),
  lp_mint: Nullable(Address('the LP mint (lp_token pools)')),
  lp_supply: Amount('the LP mint\'s supply'),
  lp_burned_share: Share('LP burned or held by the incinerator, of all the pool minted'),
  lp_locked_share: Share('LP (or liquidity) held by known lockers or locked by the pool itself'),
  locks: Type.Array(PoolLock, { description: 'the lockers\' LP accounts among the largest LP holders' }),
  evidence: Type.Array(Address('an account read'), { description: 'the accounts these figures were read from' }),
  reason: Type.Optional(Type.String({ description: 'why a figure is null' }))
}, { additionalProperties: false })

export const Liquidity = Type.Object({
  available: Type.Boolean({ description: 'false when no pool could be searched or read' }),
  reason: Type.Optional(Type.String({ description: 'what could not be searched or read' })),
  slot: Type.Optional(Type.Integer({ description: 'slot of the pool reads' })),
  pools: Type.Array(Pool, { maxItems: 20, description: 'pools trading the token on the listed programs, largest token reserve first' })
}, { additionalProperties: false, description: 'Every pool of the token read from the chain, its LP burned and locked, with the accounts that prove it.' })

export type PoolBody = Static<typeof Pool>
export type LiquidityBody = Static<typeof Liquidity>
