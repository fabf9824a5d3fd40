import { X402_HEADERS } from '../../schemas/payment-headers.js'

export { X402_HEADERS }

export type X402Flow = 'x402-v1' | 'x402-v2'

/** base64 of JSON, the encoding of every x402 header. */
export function encodeHeaderJson (value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64')
}
