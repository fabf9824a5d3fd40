import type { Address } from '@solana/kit'
import { publicKeyBytes, type ReceiptKeys } from './receipt-keys.js'

/** The base the receipts' resource URLs, the did:web and the refund endpoint are made of: PUBLIC_BASE_URL, or where a local run listens (did:web needs a host). */
export function receiptBaseUrl (publicBaseUrl: string | undefined, port: number): string {
  return (publicBaseUrl ?? `http://localhost:${port}`).replace(/\/+$/, '')
}

/** did:web of a base URL: the host, its port's colon percent-encoded, path segments joined by ':'. */
export function didWebOf (baseUrl: string): string {
  const url = new URL(baseUrl)
  const path = url.pathname.split('/').filter(segment => segment !== '')
  return ['did:web', encodeURIComponent(url.host), ...path].join(':')
}

/** The DID URL naming one key: the key's base58 public key is its fragment. */
export const keyIdOf = (did: string, key: string) => `${did}#${key}`

const jwkOf = (key: Address) => ({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyBytes(key)).toString('base64url') })

/**
 * The DID document at /.well-known/did.json: the current key signs (assertionMethod), retired
 * keys stay listed as verification methods so receipts they signed still verify after a rotation.
 */
export function didDocument (did: string, keys: Pick<ReceiptKeys, 'current' | 'retired'>) {
  const method = (key: Address) => ({ id: keyIdOf(did, key), type: 'JsonWebKey2020', controller: did, publicKeyJwk: jwkOf(key) })
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: did,
    verificationMethod: [method(keys.current), ...keys.retired.map(method)],
    assertionMethod: [keyIdOf(did, keys.current)]
  }
}
