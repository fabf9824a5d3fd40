import { BaseUnits, SolanaAddress } from './common.js'
import { TOKEN_INPUT_PATTERN } from './price.js'

/**
 * What a pattern asks, in words: a refused parameter is told this instead of the regular
 * expression (keyed by the pattern; the error handler reads it for every \`pattern\` refusal).
 */
export const PATTERN_SENTENCES: Readonly<Record<string, string>> = {
  [SolanaAddress.pattern as string]: 'must be a base58 Solana address: 32 to 44 characters, digits 1-9 and letters except 0, O, I and l',
  [TOKEN_INPUT_PATTERN]: 'must be a token symbol (1 to 20 letters, digits, ".", "_" or "-", optionally after "$", such as SOL or $WIF) or a base58 mint address (32 to 44 characters)',
  [BaseUnits.pattern as string]: 'must be a whole number of base units, digits only'
}
