import {
  addDecoderSizePrefix,
  getAddressDecoder,
  getAddressEncoder,
  getArrayDecoder,
  getBooleanDecoder,
  getOptionDecoder,
  getProgramDerivedAddress,
  getStructDecoder,
  getU16Decoder,
  getU32Decoder,
  getU8Decoder,
  getUtf8Decoder,
  getUtf8Encoder,
  type Address,
  type GetAccountInfoApi,
  type Rpc,
  type Slot
} from '@solana/kit'
import { callRpc } from '../solana/rpc-errors.js'
import { accountBytes } from './read-mint.js'

export const METAPLEX_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s' as Address

/** First byte of a Metaplex token-metadata account (Key::MetadataV1). */
const METADATA_V1_KEY = 4

/** Address of the Metaplex metadata account of a mint: seeds ["metadata", program, mint]. */
export async function findMetaplexMetadataAddress (mint: Address): Promise<Address> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: METAPLEX_METADATA_PROGRAM,
    seeds: [getUtf8Encoder().encode('metadata'), getAddressEncoder().encode(METAPLEX_METADATA_PROGRAM), getAddressEncoder().encode(mint)]
  })
  return pda
}

const borshString = () => addDecoderSizePrefix(getUtf8Decoder(), getU32Decoder())

/**
 * The head of a Metaplex `Metadata` account (Borsh), up to the field we need; what follows
 * (edition nonce, token standard, collection, uses, ...) is not read.
 *
 * | offset | size          | field                                                    |
 * |--------|---------------|----------------------------------------------------------|
 * | 0      | 1             | key: 4 = MetadataV1                                      |
 * | 1      | 32            | update_authority                                         |
 * | 33     | 32            | mint                                                     |
 * | 65     | 4 + n         | name: u32 LE length + UTF-8 (Metaplex pads it with NULs)  |
 * | ...    | 4 + n         | symbol, same encoding                                    |
 * | ...    | 4 + n         | uri, same encoding                                       |
 * | ...    | 2             | seller_fee_basis_points: u16 LE                          |
 * | ...    | 1 [+ 4 + 34k] | creators: Option<Vec<{ address 32, verified 1, share 1 }>> |
 * | ...    | 1             | primary_sale_happened: bool                              |
 * | ...    | 1             | is_mutable: bool                                         |
 */
const metadataHeadDecoder = getStructDecoder([
  ['key', getU8Decoder()],
  ['updateAuthority', getAddressDecoder()],
  ['mint', getAddressDecoder()],
  ['name', borshString()],
  ['symbol', borshString()],
  ['uri', borshString()],
  ['sellerFeeBasisPoints', getU16Decoder()],
  ['creators', getOptionDecoder(getArrayDecoder(getStructDecoder([
    ['address', getAddressDecoder()],
    ['verified', getBooleanDecoder()],
    ['share', getU8Decoder()]
  ]), { size: getU32Decoder() }))],
  ['primarySaleHappened', getBooleanDecoder()],
  ['isMutable', getBooleanDecoder()]
])

export interface MetaplexMetadata {
  /** The metadata account itself. */
  address: Address
  updateAuthority: Address
  name: string
  symbol: string
  uri: string
  isMutable: boolean
}

const trimNul = (text: string) => text.replace(/\0+$/, '')

/**
 * Decodes a Metaplex metadata account; null when the bytes are not a MetadataV1 account of
 * `mint` (a spoofed or foreign account proves nothing about the token).
 */
export function decodeMetaplexMetadata (address: Address, data: Uint8Array, mint: Address): MetaplexMetadata | null {
  if (data[0] !== METADATA_V1_KEY) return null
  let head
  try {
    head = metadataHeadDecoder.decode(data)
  } catch {
    return null
  }
  if (head.mint !== mint) return null
  return {
    address,
    updateAuthority: head.updateAuthority,
    name: trimNul(head.name),
    symbol: trimNul(head.symbol),
    uri: trimNul(head.uri),
    isMutable: head.isMutable
  }
}

/**
 * Reads the Metaplex metadata of a mint, no older than the slot the mint was read at. Null when
 * there is none, or when the account at the address is not Metaplex's.
 */
export async function readMetaplexMetadata (rpc: Rpc<GetAccountInfoApi>, mint: Address, minContextSlot: Slot): Promise<MetaplexMetadata | null> {
  const address = await findMetaplexMetadataAddress(mint)
  const response = await callRpc(async () => await rpc.getAccountInfo(address, { encoding: 'base64', commitment: 'confirmed', minContextSlot }).send())
  const account = response.value
  if (account === null || account.owner !== METAPLEX_METADATA_PROGRAM) return null
  return decodeMetaplexMetadata(address, accountBytes(account.data), mint)
}
