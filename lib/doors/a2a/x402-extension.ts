/**
 * The a2a-x402 extension as this merchant speaks it (x402's specs/transports-v2/a2a.md): its URIs
 * and the metadata keys of the status messages that carry the payment.
 */

/** The extension's URI (v0.1), declared required on the card. */
export const X402_EXTENSION_URI = 'https://github.com/google-a2a/a2a-x402/v0.1'
/** The v0.2 spelling of the same extension, accepted in its place. */
export const X402_EXTENSION_URI_V02 = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2'
export const X402_EXTENSION_URIS: readonly string[] = [X402_EXTENSION_URI, X402_EXTENSION_URI_V02]

/** Metadata keys of the extension, on the status message (agent) or the message (client). */
export const X402_META = {
  status: 'x402.payment.status',
  required: 'x402.payment.required',
  payload: 'x402.payment.payload',
  receipts: 'x402.payment.receipts',
  error: 'x402.payment.error'
} as const

export type X402PaymentStatus = 'payment-required' | 'payment-submitted' | 'payment-verified' | 'payment-completed' | 'payment-failed' | 'payment-rejected'

/** Our own task metadata: what the task sells, and the payment accepted for it (a task is stored from then on). */
export const TASK_META = {
  purchase: 'token-merchant/purchase',
  payment: 'token-merchant/payment',
  redelivered: 'token-merchant/redelivered',
  /** On a status message: the seconds to wait before sending the same payment again (on a new task). */
  retryAfterSeconds: 'token-merchant/retryAfterSeconds'
} as const

/**
 * The extensions a request activates, from its A2A-Extensions (v0.3: X-A2A-Extensions) list:
 * either spelling of the x402 extension counts as the required one.
 */
export function requestedExtensions (listed: readonly string[]): { requested: string[], x402: string[] } {
  const x402 = listed.filter(uri => X402_EXTENSION_URIS.includes(uri))
  return { requested: x402.length > 0 && !listed.includes(X402_EXTENSION_URI) ? [...listed, X402_EXTENSION_URI] : [...listed], x402 }
}
