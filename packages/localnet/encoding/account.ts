// UiAccount rendering for getAccountInfo / getMultipleAccounts / getTokenAccountsByOwner.
import { encodeBase58 } from './base58.js'
import { RpcError } from '../rpc-errors.js'
import { isTokenProgram } from './token-layout.js'
import { parseTokenAccountData, type ParsedTokenData } from './token-parsed.js'
import { zstdStoredFrame } from './zstd-raw.js'
import type { EngineAccount } from '../svm.js'

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed'
export const ACCOUNT_ENCODINGS: readonly AccountEncoding[] = ['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed']

export interface DataSlice {
  offset: number;
  length: number;
}

export interface UiAccount {
  data: string | [string, string] | ParsedTokenData;
  executable: boolean;
  lamports: bigint;
  owner: string;
  rentEpoch: bigint;
  space: number;
}

const BASE58_LIMIT = 128

export function encodeAccount (
  account: EngineAccount,
  encoding: AccountEncoding,
  readAccount: (address: string) => EngineAccount | null,
  dataSlice?: DataSlice
): UiAccount {
  const base = { executable: account.executable, lamports: account.lamports, owner: account.owner, rentEpoch: account.rentEpoch, space: account.data.length }
  if (encoding === 'jsonParsed' && isTokenProgram(account.owner)) {
    const parsed = parseTokenAccountData(account, readAccount)
    if (parsed) return { ...base, data: parsed }
  }
  const bytes = dataSlice ? account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length) : account.data
  switch (encoding) {
    case 'binary':
    case 'base58':
      if (bytes.length >= BASE58_LIMIT) {
        throw new RpcError(-32600, 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.')
      }
      return { ...base, data: encoding === 'binary' ? encodeBase58(bytes) : [encodeBase58(bytes), 'base58'] }
    case 'base64+zstd':
      return { ...base, data: [Buffer.from(zstdStoredFrame(bytes)).toString('base64'), 'base64+zstd'] }
    default:
      // jsonParsed falls back to base64 for accounts without a parser, as on a node
      return { ...base, data: [Buffer.from(bytes).toString('base64'), 'base64'] }
  }
}
