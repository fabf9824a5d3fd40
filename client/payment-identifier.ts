import type { x402Client as X402Client } from '@x402/fetch'
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'

/**
 * Names every payment this client builds with a fresh x402 payment-identifier (when the merchant
 * declares the extension): a retry of the same payload after a lost answer then fetches the kept
 * answer, and only this buyer can (the id never goes on chain).
 */
export function withPaymentIdentifier<C extends Pick<X402Client, 'registerExtension'>> (client: C): C {
  client.registerExtension({
    key: PAYMENT_IDENTIFIER,
    enrichPaymentPayload: async (payload) => payload.extensions?.[PAYMENT_IDENTIFIER] === undefined
      ? payload
      : { ...payload, extensions: appendPaymentIdentifierToExtensions({ ...payload.extensions }, generatePaymentId()) }
  })
  return client
}
