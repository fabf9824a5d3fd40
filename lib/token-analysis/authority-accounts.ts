import { createHash } from 'node:crypto'
import {
  getAddressDecoder,
  getArrayDecoder,
  getBooleanDecoder,
  getOptionDecoder,
  getStructDecoder,
  getU16Decoder,
  getU32Decoder,
  getU64Decoder,
  getU8Decoder,
  type Address,
  type Decoder
} from '@solana/kit'
import type { MultisigState } from '../solana/token-multisig.js'

/** Squads Protocol v4 (Squads-Protocol/v4, programs/squads_multisig_program) and v3 (squads-mpl). */
export const SQUADS_V4_PROGRAM = 'SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf' as Address
export const SQUADS_V3_PROGRAM = 'SMPLecH534NA9acpos4G6x7uf3LWbCAwZQE9e8ZekMu' as Address

/** First 8 bytes of an Anchor account: sha256("account:<Name>"). */
const anchorDiscriminator = (name: string) => new Uint8Array(createHash('sha256').update(`account:${name}`).digest().subarray(0, 8))
const startsWith = (data: Uint8Array, prefix: Uint8Array) => data.length >= prefix.length && prefix.every((byte, i) => data[i] === byte)

/**
 * Squads v4 `Multisig` (state/multisig.rs): create_key, config_authority, threshold u16, time_lock
 * u32, transaction_index u64, stale_transaction_index u64, rent_collector Option<Pubkey>, bump u8,
 * members Vec<{ key, permissions u8 }>; the optional hook after them is not read. Only members with
 * the Vote permission (bit 1) count towards the threshold.
 */
const squadsV4Decoder: Decoder<{ threshold: number, members: Array<{ key: Address, permissions: number }> }> = getStructDecoder([
  ['createKey', getAddressDecoder()],
  ['configAuthority', getAddressDecoder()],
  ['threshold', getU16Decoder()],
  ['timeLock', getU32Decoder()],
  ['transactionIndex', getU64Decoder()],
  ['staleTransactionIndex', getU64Decoder()],
  ['rentCollector', getOptionDecoder(getAddressDecoder())],
  ['bump', getU8Decoder()],
  ['members', getArrayDecoder(getStructDecoder([['key', getAddressDecoder()], ['permissions', getU8Decoder()]]), { size: getU32Decoder() })]
])
const SQUADS_VOTE_PERMISSION = 1 << 1

/**
 * Squads v3 `Ms` (squads-mpl, programs/squads-mpl/src/state/ms.rs): threshold u16, authority_index
 * u16, transaction_index u32, ms_change_index u32, bump u8, create_key, allow_external_execute bool,
 * keys Vec<Pubkey>.
 */
const squadsV3Decoder: Decoder<{ threshold: number, keys: Address[] }> = getStructDecoder([
  ['threshold', getU16Decoder()],
  ['authorityIndex', getU16Decoder()],
  ['transactionIndex', getU32Decoder()],
  ['msChangeIndex', getU32Decoder()],
  ['bump', getU8Decoder()],
  ['createKey', getAddressDecoder()],
  ['allowExternalExecute', getBooleanDecoder()],
  ['keys', getArrayDecoder(getAddressDecoder(), { size: getU32Decoder() })]
])

const SQUADS_V4_MULTISIG = anchorDiscriminator('Multisig')
const SQUADS_V3_MS = anchorDiscriminator('Ms')

/** The multisig a Squads-owned account holds, or null when it is another Squads account (a proposal, a vault's state). */
export function decodeSquadsMultisig (owner: Address, data: Uint8Array): MultisigState | null {
  try {
    if (owner === SQUADS_V4_PROGRAM && startsWith(data, SQUADS_V4_MULTISIG)) {
      const state = squadsV4Decoder.decode(data, SQUADS_V4_MULTISIG.length)
      return { threshold: state.threshold, signers: state.members.filter(member => (member.permissions & SQUADS_VOTE_PERMISSION) !== 0).map(member => member.key) }
    }
    if (owner === SQUADS_V3_PROGRAM && startsWith(data, SQUADS_V3_MS)) {
      const state = squadsV3Decoder.decode(data, SQUADS_V3_MS.length)
      return { threshold: state.threshold, signers: state.keys }
    }
  } catch {
    // Truncated or of a newer layout: the owner is still reported, without threshold and members.
  }
  return null
}
