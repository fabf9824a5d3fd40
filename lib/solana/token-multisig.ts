import { getMultisigDecoder, getMultisigSize, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import type { Address } from '@solana/kit'

/** A multisig as its account says: m of n, and the n keys. */
export interface MultisigState {
  threshold: number
  signers: Address[]
}

/**
 * SPL Token / Token-2022 `Multisig` (355 bytes, the same in both programs): m, n, is_initialized,
 * then 11 signer slots of which the first n are used.
 */
export function decodeTokenMultisig (owner: Address, data: Uint8Array): MultisigState | null {
  if (owner !== TOKEN_PROGRAM_ADDRESS && owner !== TOKEN_2022_PROGRAM_ADDRESS) return null
  if (data.length !== getMultisigSize()) return null
  const multisig = getMultisigDecoder().decode(data)
  if (!multisig.isInitialized || multisig.n === 0 || multisig.m === 0 || multisig.m > multisig.n || multisig.n > multisig.signers.length) return null
  return { threshold: multisig.m, signers: multisig.signers.slice(0, multisig.n) }
}
