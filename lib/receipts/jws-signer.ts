import { sign } from 'node:crypto'
import type { PaymentRequirements } from '@x402/core/types'
import { canonicalize, OFFER_RECEIPT, type JWSSignedOffer, type JWSSignedReceipt, type OfferPayload, type ReceiptPayload } from '@x402/extensions/offer-receipt'
import type { ReceiptKeys } from './receipt-keys.js'

/** How long a signed offer holds; a 402 is re-signed at least every half of it. */
export const OFFER_VALIDITY_SECONDS = 300
const OFFER_STEP_SECONDS = OFFER_VALIDITY_SECONDS / 2
const EXTENSION_VERSION = 1

/**
 * EdDSA JWS exactly as the library's createJWS makes them (header { alg, kid }, the payload in
 * JCS), but synchronous: a 402 is built synchronously on every door, and Ed25519 signatures are
 * deterministic, so an offer of one time step signs to the same bytes on every instance.
 */
export function createReceiptSigner (keys: ReceiptKeys, didOf: (key: string) => string) {
  const kid = didOf(keys.current)
  const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid })).toString('base64url')

  function jws (payload: object): string {
    return jwsOfBytes(Buffer.from(canonicalize(payload)))
  }

  /** A compact JWS of exact bytes (the reputation documents sign their body as sent). */
  function jwsOfBytes (bytes: Buffer): string {
    const body = bytes.toString('base64url')
    const signature = sign(null, Buffer.from(`${header}.${body}`), keys.privateKey).toString('base64url')
    return `${header}.${body}.${signature}`
  }

  /** Offers valid until the end of the next time step (between 150 and 300 s from now). */
  function offers (resourceUrl: string, accepts: readonly PaymentRequirements[], nowSeconds = Math.floor(Date.now() / 1000)): JWSSignedOffer[] {
    const validUntil = (Math.floor(nowSeconds / OFFER_STEP_SECONDS) + 2) * OFFER_STEP_SECONDS
    return accepts.map((accept, acceptIndex) => {
      const payload: OfferPayload = { version: EXTENSION_VERSION, resourceUrl, scheme: accept.scheme, network: accept.network, asset: accept.asset, payTo: accept.payTo, amount: accept.amount, validUntil }
      return { format: 'jws', acceptIndex, signature: jws(payload) }
    })
  }

  function receipt (input: { resourceUrl: string, payer: string, network: string, transaction: string, issuedAt?: number }): JWSSignedReceipt {
    const payload: ReceiptPayload = { version: EXTENSION_VERSION, network: input.network, resourceUrl: input.resourceUrl, payer: input.payer, issuedAt: input.issuedAt ?? Math.floor(Date.now() / 1000), transaction: input.transaction }
    return { format: 'jws', signature: jws(payload) }
  }

  return {
    kid,
    jws,
    jwsOfBytes,
    /** extensions["offer-receipt"] of a PaymentRequired. */
    offerExtension: (resourceUrl: string, accepts: readonly PaymentRequirements[]) => ({ [OFFER_RECEIPT]: { info: { offers: offers(resourceUrl, accepts) } } }),
    /** extensions["offer-receipt"] of a settlement response. */
    receiptExtension: (input: Parameters<typeof receipt>[0]) => ({ [OFFER_RECEIPT]: { info: { receipt: receipt(input) } } }),
    offers,
    receipt
  }
}

export type ReceiptSigner = ReturnType<typeof createReceiptSigner>
