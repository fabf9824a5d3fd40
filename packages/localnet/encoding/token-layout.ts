// Raw byte layouts of SPL Token / Token-2022 mints and token accounts. Reading them directly keeps the
// per-transaction balance snapshots cheap; the full decoders are only used for jsonParsed.
import { encodeBase58 } from './base58.js'

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'

const MINT_SIZE = 82
const ACCOUNT_SIZE = 165
const ACCOUNT_TYPE_OFFSET = 165 // Token-2022: byte after the (padded) base state
const ACCOUNT_TYPE_MINT = 1
const ACCOUNT_TYPE_ACCOUNT = 2

export function isTokenProgram (programId: string): boolean {
  return programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM
}

export function isMintData (data: Uint8Array): boolean {
  return data.length === MINT_SIZE || (data.length > ACCOUNT_SIZE && data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_MINT)
}

export function isTokenAccountData (data: Uint8Array): boolean {
  return data.length === ACCOUNT_SIZE || (data.length > ACCOUNT_SIZE && data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_ACCOUNT)
}

function u64 (data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset + offset, 8).getBigUint64(0, true)
}

export interface RawMint {
  decimals: number;
  supply: bigint;
  isInitialized: boolean;
}

export function readMint (data: Uint8Array): RawMint | null {
  if (!isMintData(data)) return null
  const isInitialized = data[45] === 1
  if (!isInitialized) return null
  return { supply: u64(data, 36), decimals: data[44], isInitialized }
}

export interface RawTokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  /** 0 uninitialized, 1 initialized, 2 frozen */
  state: number;
}

export function readTokenAccount (data: Uint8Array): RawTokenAccount | null {
  if (!isTokenAccountData(data)) return null
  const state = data[108]
  if (state === 0) return null
  return { mint: encodeBase58(data.subarray(0, 32)), owner: encodeBase58(data.subarray(32, 64)), amount: u64(data, 64), state }
}

/** Mint address bytes of a token account, for cheap filtering without base58. */
export function tokenAccountMintBytes (data: Uint8Array): Uint8Array {
  return data.subarray(0, 32)
}
