import { Type } from '@sinclair/typebox'
import { USDC_MAINNET_MINT } from './networks.js'

/** A base58 string of 32 bytes (an account address); the exact check happens in code. */
export const SolanaAddress = Type.String({
  pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
  description: 'base58-encoded 32-byte Solana address',
  examples: [USDC_MAINNET_MINT]
})

/** Base units of a token as a decimal string: exact, never a float. */
export const BaseUnits = Type.String({ pattern: '^[0-9]+$', description: 'amount in base units', examples: ['50000'] })

export const IsoDateTime = Type.String({ format: 'date-time', description: 'ISO 8601 UTC time' })
