import { getBase64Encoder, unwrapOption, type Address, type Base64EncodedDataResponse, type GetAccountInfoApi, type Rpc } from '@solana/kit'
import { getMintDecoder as getTokenMintDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import {
  ExtensionType,
  getExtensionDecoder,
  getMintDecoder as getToken2022MintDecoder,
  TOKEN_2022_PROGRAM_ADDRESS,
  type Extension
} from '@solana-program/token-2022'
import { AppError } from '../errors/app-error.js'
import { callRpc } from '../solana/rpc-errors.js'

// Account sizes fixed by both token programs: a mint's base state, a token account, a multisig.
const MINT_SIZE = 82
const TOKEN_ACCOUNT_SIZE = 165
const MULTISIG_SIZE = 355
// Token-2022 puts an AccountType byte right after the (padded) 165-byte base, then TLV entries.
const ACCOUNT_TYPE_OFFSET = TOKEN_ACCOUNT_SIZE
const ACCOUNT_TYPE_MINT = 1
const TLV_START = ACCOUNT_TYPE_OFFSET + 1
const TLV_HEADER_SIZE = 4

/** The extensions a mint can carry; account-only ones found on a mint are reported as unknown. */
const MINT_EXTENSION_TYPES = new Set<number>([
  ExtensionType.TransferFeeConfig, ExtensionType.MintCloseAuthority, ExtensionType.ConfidentialTransferMint,
  ExtensionType.DefaultAccountState, ExtensionType.NonTransferable, ExtensionType.InterestBearingConfig,
  ExtensionType.PermanentDelegate, ExtensionType.TransferHook, ExtensionType.ConfidentialTransferFee,
  ExtensionType.MetadataPointer, ExtensionType.TokenMetadata, ExtensionType.GroupPointer, ExtensionType.TokenGroup,
  ExtensionType.GroupMemberPointer, ExtensionType.TokenGroupMember, ExtensionType.ConfidentialMintBurn,
  ExtensionType.ScaledUiAmountConfig, ExtensionType.PausableConfig, ExtensionType.PermissionedBurn
])

type AccountOnlyKind = 'Uninitialized' | 'TransferFeeAmount' | 'ConfidentialTransferAccount' | 'ImmutableOwner' | 'MemoTransfer'
  | 'CpiGuard' | 'NonTransferableAccount' | 'TransferHookAccount' | 'ConfidentialTransferFeeAmount' | 'PausableAccount'

/** A mint extension as decoded by @solana-program/token-2022, or the type number of one it cannot decode. */
export type MintExtension = Exclude<Extension, { __kind: AccountOnlyKind }> | { __kind: 'Unknown', extensionType: number }

export interface DecodedMint {
  programAddress: typeof TOKEN_PROGRAM_ADDRESS | typeof TOKEN_2022_PROGRAM_ADDRESS
  mintAuthority: Address | null
  freezeAuthority: Address | null
  supply: bigint
  decimals: number
  extensions: MintExtension[]
}

export interface MintRead {
  mint: DecodedMint
  /** Slot of the RPC context the account was read at. */
  slot: bigint
}

function notAMint (address: string, owner: string, why: string): AppError {
  return new AppError('NOT_A_TOKEN_MINT', `Account ${address} is not a token mint: ${why}`, { details: { owner } })
}

function decodeExtension (type: number, entry: Uint8Array): MintExtension {
  if (!MINT_EXTENSION_TYPES.has(type)) return { __kind: 'Unknown', extensionType: type }
  try {
    // Safe: the type number was checked against the mint extensions just above.
    return getExtensionDecoder().decode(entry) as MintExtension
  } catch {
    // A newer layout than this library knows: still report that the extension is there.
    return { __kind: 'Unknown', extensionType: type }
  }
}

/** Walks the type-length-value entries after the account-type byte; type 0 marks the free space at the end. */
function decodeExtensions (data: Uint8Array, fail: (why: string) => AppError): MintExtension[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  const extensions: MintExtension[] = []
  let offset = TLV_START
  while (offset + TLV_HEADER_SIZE <= data.length) {
    const type = view.getUint16(offset, true)
    if (type === ExtensionType.Uninitialized) break
    const end = offset + TLV_HEADER_SIZE + view.getUint16(offset + 2, true)
    if (end > data.length) throw fail('an extension runs past the end of the account')
    extensions.push(decodeExtension(type, data.subarray(offset, end)))
    offset = end
  }
  return extensions
}

/**
 * Decodes the data of an account as a mint of the SPL Token or Token-2022 program, extensions
 * included. Anything else (another owner, a token account, a multisig, an uninitialised mint)
 * is a 422 NOT_A_TOKEN_MINT.
 */
export function decodeMintAccount (address: string, owner: string, data: Uint8Array): DecodedMint {
  const fail = (why: string) => notAMint(address, owner, why)
  let base
  let programAddress: DecodedMint['programAddress']
  let extensions: MintExtension[] = []
  if (owner === TOKEN_PROGRAM_ADDRESS) {
    if (data.length !== MINT_SIZE) throw fail(`its ${data.length} bytes are not the ${MINT_SIZE} of a mint`)
    programAddress = TOKEN_PROGRAM_ADDRESS
    base = getTokenMintDecoder().decode(data)
  } else if (owner === TOKEN_2022_PROGRAM_ADDRESS) {
    const isBaseMint = data.length === MINT_SIZE
    const isExtendedMint = data.length >= TLV_START && data.length !== MULTISIG_SIZE && data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_MINT
    if (!isBaseMint && !isExtendedMint) throw fail('it is a token account or multisig of the Token-2022 program')
    programAddress = TOKEN_2022_PROGRAM_ADDRESS
    base = getToken2022MintDecoder().decode(data.subarray(0, MINT_SIZE))
    if (isExtendedMint) extensions = decodeExtensions(data, fail)
  } else {
    throw fail(`it is owned by ${owner}, not by the SPL Token or Token-2022 program`)
  }
  if (!base.isInitialized) throw fail('the mint is not initialised')
  return {
    programAddress,
    mintAuthority: unwrapOption(base.mintAuthority),
    freezeAuthority: unwrapOption(base.freezeAuthority),
    supply: base.supply,
    decimals: base.decimals,
    extensions
  }
}

/** The account bytes of a base64 getAccountInfo answer. */
export function accountBytes (data: Base64EncodedDataResponse): Uint8Array {
  return new Uint8Array(getBase64Encoder().encode(data[0]))
}

/** Reads and decodes a mint: 404 MINT_NOT_FOUND, 422 NOT_A_TOKEN_MINT or 503 RPC_UNAVAILABLE otherwise. */
export async function readMint (rpc: Rpc<GetAccountInfoApi>, address: Address): Promise<MintRead> {
  const response = await callRpc(async () => await rpc.getAccountInfo(address, { encoding: 'base64', commitment: 'confirmed' }).send())
  const account = response.value
  if (account === null) throw new AppError('MINT_NOT_FOUND', `No account exists at ${address}`)
  return { mint: decodeMintAccount(address, account.owner, accountBytes(account.data)), slot: response.context.slot }
}
