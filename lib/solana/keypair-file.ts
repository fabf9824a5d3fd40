import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { createKeyPairSignerFromBytes, getAddressDecoder, type Address, type KeyPairSigner } from '@solana/kit'

// PKCS#8 prefix of an Ed25519 private key; the 32-byte seed follows it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

function privateKeyOfSeed (seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' })
}

function publicKeyOfSeed (seed: Uint8Array): Uint8Array {
  const spki = createPublicKey(privateKeyOfSeed(seed)).export({ format: 'der', type: 'spki' })
  return new Uint8Array(spki.subarray(spki.length - 32))
}

/** A new keypair in the solana-keygen file format: a JSON array of 64 bytes, seed then public key. */
export function generateKeypairBytes (): Uint8Array {
  const { privateKey } = generateKeyPairSync('ed25519')
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' })
  const seed = new Uint8Array(pkcs8.subarray(pkcs8.length - 32))
  return new Uint8Array([...seed, ...publicKeyOfSeed(seed)])
}

/**
 * Reads a solana-keygen keypair file (a JSON array of 64 bytes: secret seed, then public key),
 * checking that the two halves belong together. The one reader of the server and the client.
 */
function readKeypairFile (path: string): Uint8Array {
  let bytes: unknown
  try {
    bytes = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // A missing file is what a newcomer meets first: say how to make one, as the server does.
    if (code === 'ENOENT') throw new Error(`keypair file ${path} does not exist (write one: token-merchant keygen <file>)`)
    throw new Error(`cannot read keypair file ${path} (${code ?? 'not valid JSON'})`)
  }
  if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every(b => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new Error(`keypair file ${path} must hold a JSON array of 64 bytes`)
  }
  const keypair = Uint8Array.from(bytes as number[])
  if (!Buffer.from(publicKeyOfSeed(keypair.subarray(0, 32))).equals(Buffer.from(keypair.subarray(32)))) {
    throw new Error(`keypair file ${path} holds a public key that does not match its secret key`)
  }
  return keypair
}

/** The address of a keypair file. */
export function readKeypairAddress (path: string): Address {
  return getAddressDecoder().decode(readKeypairFile(path).subarray(32))
}

/** A keypair file as a kit signer. */
export async function loadKeypairSigner (path: string): Promise<KeyPairSigner> {
  return await createKeyPairSignerFromBytes(readKeypairFile(path))
}

/**
 * A keypair file as a kit signer and as Node's own key object of the same seed, for signing in
 * place on the hot path. Node 24 deprecates KeyObject.from() of kit's non-extractable CryptoKey
 * (DEP0204), so the key object is made from the file's seed instead.
 */
export async function loadKeypairWithNodeKey (path: string): Promise<{ signer: KeyPairSigner, nodeKey: KeyObject }> {
  const bytes = readKeypairFile(path)
  return { signer: await createKeyPairSignerFromBytes(bytes), nodeKey: privateKeyOfSeed(bytes.subarray(0, 32)) }
}

/**
 * Writes a new keypair file readable by its owner only. The file appears complete or not at
 * all (written aside, then hard-linked into place), and an existing file is never replaced.
 */
export function writeKeypairFile (path: string, bytes: Uint8Array = generateKeypairBytes()): Address {
  // A folder that holds secret keys is its owner's alone.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const aside = `${path}.${process.pid}.tmp`
  writeFileSync(aside, JSON.stringify([...bytes]), { mode: 0o600 })
  try {
    linkSync(aside, path)
  } finally {
    unlinkSync(aside)
  }
  return getAddressDecoder().decode(bytes.subarray(32))
}

/**
 * The merchant's address from its keypair file, creating the file on first start. Workers of
 * a cluster starting together agree on one file: whoever links second reads the winner's.
 */
export function resolveMerchantAddress (path: string): { address: Address, created: boolean } {
  if (existsSync(path)) return { address: readKeypairAddress(path), created: false }
  try {
    return { address: writeKeypairFile(path), created: true }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return { address: readKeypairAddress(path), created: false }
  }
}
