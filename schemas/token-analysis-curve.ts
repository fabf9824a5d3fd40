import { Type, type Static } from '@sinclair/typebox'
import { SolanaAddress } from './common.js'

// The bonding curve part of the analysis (lib/token-analysis/curve/).
const Address = (description: string) => Type.String({ pattern: SolanaAddress.pattern, description })
const Amount = (description: string) => Type.Optional(Type.String({ pattern: '^[0-9]+$', description: `${description}, in base units` }))

export const BondingCurve = Type.Object({
  available: Type.Boolean({ description: 'false when the curve could not be read (see reason)' }),
  reason: Type.Optional(Type.String({ description: 'why unavailable, why there is no curve, or why graduated_pool is null' })),
  slot: Type.Optional(Type.Integer({ description: 'slot of the read' })),
  address: Type.Optional(Address('the curve account, PDA["bonding-curve", mint] of program')),
  program: Type.Optional(Address('the launchpad program (pump.fun)')),
  found: Type.Optional(Type.Boolean({ description: 'a curve account of the program exists for the mint; false: not launched there' })),
  complete: Type.Optional(Type.Boolean({ description: 'the curve sold out and closed; trading moved to graduated_pool' })),
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'share of the curve sold: 1 − real_token_reserves / the Global account\'s initial_real_token_reserves, rounded to 6 decimals' })),
  virtual_token_reserves: Amount('virtual token reserves'),
  virtual_sol_reserves: Amount('virtual SOL reserves (lamports)'),
  real_token_reserves: Amount('tokens left to sell'),
  real_sol_reserves: Amount('SOL paid in (lamports)'),
  token_total_supply: Amount('the curve\'s total supply'),
  graduated_pool: Type.Optional(Type.Union([Address('the canonical PumpSwap pool of a complete curve, when it exists on chain'), Type.Null()])),
  evidence: Type.Array(Address('an account read'), { description: 'the accounts these figures were read from' })
}, { additionalProperties: false, description: 'The token\'s pump.fun bonding curve, read from the chain: sold share, reserves, and the pool it graduated to.' })

export type BondingCurveBody = Static<typeof BondingCurve>
