import bs58 from 'bs58'

// Request paths check addresses and signatures on every call; bs58's decoder is several
// times faster than @solana/kit's BigInt-based codec for these checks.

/** True for a base58 string of exactly `bytes` bytes. */
export function isBase58OfLength (text: string, bytes: number): boolean {
  return text.length <= 88 && bs58.decodeUnsafe(text)?.length === bytes
}

/** Bytes (a key, a signature) as base58 text. */
export function base58Text (bytes: Uint8Array): string {
  return bs58.encode(bytes)
}

/** The bytes of a base58 key, for comparing keys as bytes. */
export function keyBytes (address: string): Uint8Array {
  return bs58.decode(address)
}

/** A public key or account address: base58 of 32 bytes. */
export function isBase58Address (text: string): boolean {
  return isBase58OfLength(text, 32)
}
