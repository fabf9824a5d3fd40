// Parses the Solana wire format (signatures + message) without kit's high-level decoders: the RPC layer
// needs the raw compiled form (indexes, header, lookups) exactly as a node renders it in `json` encoding.
import { encodeBase58 } from './base58.js'

export interface CompiledInstructionBytes {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface AddressTableLookupBytes {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface WireTransaction {
  bytes: Uint8Array;
  signatures: Uint8Array[];
  messageBytes: Uint8Array;
  version: 'legacy' | 0;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  staticAccountKeys: string[];
  recentBlockhash: string;
  instructions: CompiledInstructionBytes[];
  addressTableLookups: AddressTableLookupBytes[];
}

/** Thrown for bytes that are not a transaction; the message mirrors bincode's errors on a real node. */
export class WireFormatError extends Error {}

/** Thrown for a well-formed message of a version this chain does not execute. */
export class UnsupportedVersionError extends Error {}

class Reader {
  offset = 0
  constructor (private readonly bytes: Uint8Array) {}

  u8 (): number {
    if (this.offset >= this.bytes.length) throw new WireFormatError('io error: failed to fill whole buffer')
    return this.bytes[this.offset++]
  }

  take (length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new WireFormatError('io error: failed to fill whole buffer')
    const out = this.bytes.subarray(this.offset, this.offset + length)
    this.offset += length
    return out
  }

  /** compact-u16 ("shortvec") length prefix */
  shortVec (): number {
    let value = 0
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = this.u8()
      value |= (byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return value
    }
    throw new WireFormatError('io error: invalid compact-u16')
  }

  indexes (): number[] {
    return Array.from(this.take(this.shortVec()))
  }

  key (): string {
    return encodeBase58(this.take(32))
  }

  get remaining (): number {
    return this.bytes.length - this.offset
  }
}

export function parseWireTransaction (bytes: Uint8Array): WireTransaction {
  const reader = new Reader(bytes)
  const signatureCount = reader.shortVec()
  const signatures: Uint8Array[] = []
  for (let i = 0; i < signatureCount; i++) signatures.push(reader.take(64))
  const messageStart = reader.offset

  let version: 'legacy' | 0 = 'legacy'
  const first = reader.u8()
  let numRequiredSignatures = first
  if (first & 0x80) {
    const declared = first & 0x7f
    if (declared !== 0) throw new UnsupportedVersionError(`Transaction version (${declared}) is not supported`)
    version = 0
    numRequiredSignatures = reader.u8()
  }
  const header = {
    numRequiredSignatures,
    numReadonlySignedAccounts: reader.u8(),
    numReadonlyUnsignedAccounts: reader.u8(),
  }
  const keyCount = reader.shortVec()
  const staticAccountKeys: string[] = []
  for (let i = 0; i < keyCount; i++) staticAccountKeys.push(reader.key())
  const recentBlockhash = reader.key()
  const instructionCount = reader.shortVec()
  const instructions: CompiledInstructionBytes[] = []
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8()
    const accounts = reader.indexes()
    const data = reader.take(reader.shortVec())
    instructions.push({ programIdIndex, accounts, data })
  }
  const addressTableLookups: AddressTableLookupBytes[] = []
  if (version === 0) {
    const lookupCount = reader.shortVec()
    for (let i = 0; i < lookupCount; i++) {
      addressTableLookups.push({ accountKey: reader.key(), writableIndexes: reader.indexes(), readonlyIndexes: reader.indexes() })
    }
  }
  if (reader.remaining !== 0) throw new WireFormatError('io error: trailing bytes after transaction')
  return {
    bytes,
    signatures,
    messageBytes: bytes.subarray(messageStart),
    version,
    header,
    staticAccountKeys,
    recentBlockhash,
    instructions,
    addressTableLookups,
  }
}

/** Writable = signed-writable or unsigned-writable static key, per the message header. */
export function isStaticKeyWritable (tx: WireTransaction, index: number): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = tx.header
  if (index < numRequiredSignatures) return index < numRequiredSignatures - numReadonlySignedAccounts
  return index < tx.staticAccountKeys.length - numReadonlyUnsignedAccounts
}
