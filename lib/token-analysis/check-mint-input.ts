import { validationError } from '../errors/error-body.js'
import { boundedMemo } from '../http/bounded-memo.js'
import { isBase58Address } from '../solana/base58.js'

const ADDRESS_PROBLEM = 'must be a base58-encoded 32-byte Solana address'
// Decoding base58 was the costliest step of a 402 here; agents ask about the same mints again and
// again, so the last answers are kept (bounded: the addresses are the client's to vary).
const REMEMBERED_ADDRESSES = 1024
const decodesToAddress = boundedMemo(REMEMBERED_ADDRESSES, isBase58Address)

/**
 * What analyze-token checks before asking for payment, from the HTTP route or the MCP tool: the
 * schema pattern lets through strings that do not decode to exactly 32 bytes, and nobody should
 * pay to learn that their address is malformed.
 */
export function checkMintInput (field: { in: string, path: string, value: string }): void {
  if (!decodesToAddress(field.value)) throw validationError([{ in: field.in, path: field.path, message: ADDRESS_PROBLEM }])
}
