import { validationError } from '../errors/error-body.js'
import { isBase58Address } from '../solana/base58.js'

const ADDRESS_PROBLEM = 'must be a base58-encoded 32-byte Solana address'

/**
 * What analyze-token checks before asking for payment, from the HTTP route or the MCP tool: the
 * schema pattern lets through strings that do not decode to exactly 32 bytes, and nobody should
 * pay to learn that their address is malformed.
 */
export function checkMintInput (field: { in: string, path: string, value: string }): void {
  if (!isBase58Address(field.value)) throw validationError([{ in: field.in, path: field.path, message: ADDRESS_PROBLEM }])
}
