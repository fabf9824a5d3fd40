import { TOKEN_INPUT_PATTERN } from '../../schemas/price.js'
import { isBase58Address } from '../solana/base58.js'

export { TOKEN_INPUT_PATTERN }

const SYMBOL = /^\$?[A-Za-z0-9._-]{1,20}$/
const BASE58_MINT = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/

export type TokenInput =
  | { kind: 'symbol', symbol: string }
  | { kind: 'mint', mint: string }
  | { kind: 'invalid', reason: string }

export function parseTokenInput (raw: string): TokenInput {
  if (SYMBOL.test(raw)) return { kind: 'symbol', symbol: raw.replace(/^\$/, '') }
  if (BASE58_MINT.test(raw)) {
    return isBase58Address(raw)
      ? { kind: 'mint', mint: raw }
      : { kind: 'invalid', reason: 'is not a 32-byte base58 address' }
  }
  return { kind: 'invalid', reason: 'must be a token symbol (letters and digits, optional leading $) or a base58 mint address' }
}
