import { createPublicKey, type KeyObject } from 'node:crypto'

/** An Ed25519 public key as SPKI DER: this prefix, then the 32 raw bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

/**
 * Node's key object for a raw 32-byte Ed25519 public key, or undefined when the bytes cannot be one
 * (not 32 bytes; 32 bytes that are no point of the curve make a key that verifies nothing). Kept
 * for the last `capacity` keys asked: making one (DER parse, OpenSSL import) cost
 * about 0.15 ms of a paid call's CPU in a profile, and a buyer pays from the same key again and
 * again. Bounded, oldest out first, so keys sent by anyone cannot grow it.
 */
export function createEd25519KeyCache (capacity = 4096) {
  const keys = new Map<string, KeyObject | undefined>()
  return function publicKeyOf (raw: Uint8Array): KeyObject | undefined {
    const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
    if (keys.has(id)) return keys.get(id)
    let key: KeyObject | undefined
    try {
      key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' })
    } catch {
      key = undefined
    }
    if (keys.size >= capacity) keys.delete(keys.keys().next().value as string)
    keys.set(id, key)
    return key
  }
}
