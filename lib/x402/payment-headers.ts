import { PAYMENT_HEADERS, X402_HEADERS } from '../../schemas/payment-headers.js'

export { X402_HEADERS }

export type X402Flow = 'x402-v1' | 'x402-v2'

/** Which way a request pays: not at all, with seed proof headers, or with one x402 header. */
export type PaymentForm =
  | { kind: 'none' }
  | { kind: 'proof' }
  | { kind: 'x402', flow: X402Flow, header: string }
  | { kind: 'conflict', headers: string[] }

function present (headers: Record<string, string | string[] | undefined>, name: string): boolean {
  return headers[name] !== undefined
}

/**
 * Reads which payment form a request carries. More than one form in one request (seed proof
 * headers beside an x402 header, or both x402 headers) is a conflict: which payment is meant
 * cannot be guessed, and paying with one while the other is ignored would surprise the buyer.
 */
export function readPaymentForm (headers: Record<string, string | string[] | undefined>): PaymentForm {
  const seed = [PAYMENT_HEADERS.signature, PAYMENT_HEADERS.wallet].filter(name => present(headers, name))
  const x402 = [X402_HEADERS.paymentV1, X402_HEADERS.paymentV2].filter(name => present(headers, name))
  if (x402.length === 0) return seed.length === 0 ? { kind: 'none' } : { kind: 'proof' }
  if (seed.length > 0 || x402.length > 1) return { kind: 'conflict', headers: [...seed, ...x402] }
  const name = x402[0]
  const value = headers[name]
  // A repeated header is two payments in one request: as ambiguous as two forms.
  if (Array.isArray(value)) return { kind: 'conflict', headers: [name, name] }
  return { kind: 'x402', flow: name === X402_HEADERS.paymentV1 ? 'x402-v1' : 'x402-v2', header: value as string }
}

/** base64 of JSON, the encoding of every x402 header. */
export function encodeHeaderJson (value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64')
}
