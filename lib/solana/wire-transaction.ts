// A Solana wire transaction read in one pass over its bytes, account keys kept as bytes. Kit's
// decoders turn every key into base58 through BigInt arithmetic (0.6 ms for one x402 payment on
// the paid path); the payment rules compare keys with known ones, so they need text for two at most.

const SIGNATURE_BYTES = 64
const KEY_BYTES = 32
const VERSION_PREFIX = 0x80

export interface WireInstruction {
  programIndex: number
  accountIndexes: Uint8Array
  data: Uint8Array
}

export interface WireTransaction {
  /** The whole transaction as received. */
  bytes: Uint8Array
  /** Where the signatures start (after their count) and how many there are. */
  signaturesOffset: number
  signatureCount: number
  /** The signed part. */
  messageBytes: Uint8Array
  version: 'legacy' | 0
  numSignerAccounts: number
  staticAccounts: Uint8Array[]
  recentBlockhash: Uint8Array
  instructions: WireInstruction[]
  addressTableLookupCount: number
}

class Reader {
  offset = 0
  constructor (readonly bytes: Uint8Array) {}

  byte (): number {
    if (this.offset >= this.bytes.length) throw new RangeError('truncated')
    return this.bytes[this.offset++]
  }

  /** Solana's compact-u16: 7 bits a byte, at most three bytes. */
  shortLength (): number {
    let value = 0
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = this.byte()
      value |= (byte & 0x7f) << shift
      if ((byte & 0x80) === 0) {
        if (value > 0xffff) throw new RangeError('compact-u16 overflow')
        return value
      }
    }
    throw new RangeError('compact-u16 too long')
  }

  take (length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new RangeError('truncated')
    const slice = this.bytes.subarray(this.offset, this.offset + length)
    this.offset += length
    return slice
  }
}

/** The message version of the transaction in `bytes` ('legacy' or a number), undefined when they are too short to say. */
export function messageVersionOf (bytes: Uint8Array): 'legacy' | number | undefined {
  try {
    const reader = new Reader(bytes)
    reader.take(reader.shortLength() * SIGNATURE_BYTES)
    const first = reader.byte()
    return (first & VERSION_PREFIX) === 0 ? 'legacy' : first & ~VERSION_PREFIX
  } catch {
    return undefined
  }
}

/**
 * The legacy or v0 transaction in `bytes`, or undefined when they are not exactly one well-formed
 * transaction of those versions (later versions lay their messages out otherwise).
 */
export function readWireTransaction (bytes: Uint8Array): WireTransaction | undefined {
  try {
    const reader = new Reader(bytes)
    const signatureCount = reader.shortLength()
    const signaturesOffset = reader.offset
    reader.take(signatureCount * SIGNATURE_BYTES)
    const messageStart = reader.offset
    let version: 'legacy' | 0 = 'legacy'
    if ((bytes[messageStart] & VERSION_PREFIX) !== 0) {
      if ((reader.byte() & ~VERSION_PREFIX) !== 0) return undefined
      version = 0
    }
    const numSignerAccounts = reader.byte()
    reader.byte() // read-only signed
    reader.byte() // read-only unsigned
    const staticAccounts = Array.from({ length: reader.shortLength() }, () => reader.take(KEY_BYTES))
    const recentBlockhash = reader.take(KEY_BYTES)
    const instructions = Array.from({ length: reader.shortLength() }, () => ({
      programIndex: reader.byte(),
      accountIndexes: reader.take(reader.shortLength()),
      data: reader.take(reader.shortLength())
    }))
    let addressTableLookupCount = 0
    if (version !== 'legacy') {
      addressTableLookupCount = reader.shortLength()
      for (let i = 0; i < addressTableLookupCount; i++) {
        reader.take(KEY_BYTES)
        reader.take(reader.shortLength())
        reader.take(reader.shortLength())
      }
    }
    if (reader.offset !== bytes.length || signatureCount !== numSignerAccounts || numSignerAccounts > staticAccounts.length) return undefined
    const accountCount = staticAccounts.length
    if (addressTableLookupCount === 0 && instructions.some(ix => ix.programIndex >= accountCount || ix.accountIndexes.some(index => index >= accountCount))) return undefined
    return {
      bytes,
      signaturesOffset,
      signatureCount,
      messageBytes: bytes.subarray(messageStart),
      version,
      numSignerAccounts,
      staticAccounts,
      recentBlockhash,
      instructions,
      addressTableLookupCount
    }
  } catch {
    return undefined
  }
}

/** The transaction with `signature` in slot `index` (the fee payer's is 0), as base64: ready to send. */
export function withSignature (transaction: WireTransaction, index: number, signature: Uint8Array): string {
  const signed = Buffer.from(transaction.bytes)
  signed.set(signature, transaction.signaturesOffset + index * SIGNATURE_BYTES)
  return signed.toString('base64')
}

export function sameKey (a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0
}
