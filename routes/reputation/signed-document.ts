import type { FastifyReply } from 'fastify'
import type { ReceiptSigner } from '../../lib/receipts/jws-signer.js'

/** A compact JWS (EdDSA, kid in /.well-known/did.json) whose payload is the body's exact bytes. */
export const REPUTATION_SIGNATURE_HEADER = 'x-reputation-signature'

/**
 * Sends `body` as the JSON text it was signed as: serialized once here, so the signature covers
 * the bytes on the wire (a verifier compares the JWS payload with the body it received).
 */
export async function signedJson (reply: FastifyReply, signer: ReceiptSigner, body: object) {
  const text = JSON.stringify(body)
  return await reply
    .header(REPUTATION_SIGNATURE_HEADER, signer.jwsOfBytes(Buffer.from(text)))
    .type('application/json; charset=utf-8')
    .send(text)
}
