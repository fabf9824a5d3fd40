import type { Address } from '@solana/kit'
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'

/**
 * The native mints: wrapped SOL of SPL Token (spl-token, program/src/native_mint.rs) and of
 * Token-2022 (program-2022/src/native_mint.rs). A wrapped-SOL account holds SOL, counted in its
 * lamports; nobody mints it, and the mint's supply field is not what exists.
 */
const NATIVE_MINTS: Record<string, Address> = {
  So11111111111111111111111111111111111111112: TOKEN_PROGRAM_ADDRESS,
  '9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP': TOKEN_2022_PROGRAM_ADDRESS
}

export function isNativeMint (mint: Address, programAddress: Address): boolean {
  return Object.hasOwn(NATIVE_MINTS, mint) && NATIVE_MINTS[mint] === programAddress
}

export const NATIVE_MINT_REASONS = {
  mintAuthority: 'The native mint (wrapped SOL) has no mint authority: a wrapped-SOL token exists for each lamport of SOL deposited into a token account, and goes when the account is closed.',
  supply: 'The native mint\'s supply field is not its supply: wrapped SOL is SOL held in token accounts, never minted, so the field stays 0 and the amount in circulation is not read here.'
} as const
