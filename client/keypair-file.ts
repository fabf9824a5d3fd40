import { readFile } from 'node:fs/promises'
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit'

/**
 * Loads a solana-keygen keypair file (a JSON array of 64 bytes: secret seed, then public key)
 * as a signer. Kit refuses a file whose public half does not belong to its secret half.
 */
export async function loadKeypairSigner (path: string): Promise<KeyPairSigner> {
  let bytes: unknown
  try {
    bytes = JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'not valid JSON'
    throw new Error(`cannot read keypair file ${path} (${reason})`)
  }
  if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every(b => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new Error(`keypair file ${path} must hold a JSON array of 64 bytes`)
  }
  try {
    return await createKeyPairSignerFromBytes(Uint8Array.from(bytes as number[]))
  } catch {
    throw new Error(`keypair file ${path} holds a public key that does not match its secret key`)
  }
}
