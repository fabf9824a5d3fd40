import type { PaymentPayload } from '@x402/core/types'
import { declarePaymentIdentifierExtension, extractAndValidatePaymentIdentifier, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import { refusal, type Refusal } from '../contract/refusal.js'

/**
 * x402's payment-identifier extension: the buyer names its purchase with an id (16–128 of
 * [A-Za-z0-9_-]); the same id and request fetch the kept answer again, never a second charge.
 * Optional here: advertised in every PaymentRequired, honoured when a v2 payload carries it.
 */
export const paymentIdentifierExtensions = (): Record<string, unknown> => ({ [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) })

/** The payload's payment-identifier: `id` undefined when it carries none, a refusal when it carries a malformed one. */
export function readPaymentId (payload: Record<string, unknown>): { kind: 'payment-id', id: string | undefined } | Refusal {
  const extensions = payload.extensions
  if (extensions === null || typeof extensions !== 'object' || !(PAYMENT_IDENTIFIER in extensions)) return { kind: 'payment-id', id: undefined }
  // Only `info` is judged (the library's id and `required` checks). The payload echoes a `schema`
  // too, which the library would compile (Ajv) and apply on every request: a buyer-chosen regex
  // there can hold the event loop for minutes (ReDoS), and a buyer's schema is no rule of ours.
  const extension = (extensions as Record<string, unknown>)[PAYMENT_IDENTIFIER]
  const judged = extension !== null && typeof extension === 'object' ? { info: (extension as { info?: unknown }).info } : extension
  const { id, validation } = extractAndValidatePaymentIdentifier({ extensions: { [PAYMENT_IDENTIFIER]: judged } } as unknown as PaymentPayload)
  if (!validation.valid) {
    return refusal('X402_PAYMENT_ID_INVALID', `extensions["${PAYMENT_IDENTIFIER}"] is malformed: ${(validation.errors ?? []).join('; ').slice(0, 300)}; nothing moved`)
  }
  return { kind: 'payment-id', id: id ?? undefined }
}
