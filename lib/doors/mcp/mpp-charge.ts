import { Credential } from 'mppx'
import type { HeldPayment, SettlePayment } from '../../contract/held-payment.js'
import { refusal, type Refusal } from '../../contract/refusal.js'
import type { ClaimAndSettle } from '../../delivery/paid-call.js'
import type { PaidServiceName } from '../../payment/catalog.js'
import { payloadBeyondBounds } from '../../x402/payload-bounds.js'
import { chargeReceipt, type MppPayments } from '../../mpp/mpp-payments.js'

/** Where MCP carries a charge credential (`params._meta`), and where it answers the receipt and the challenges (mppx's Mcp constants). */
export const MPP_CREDENTIAL_META_KEY = 'org.paymentauth/credential'
export const MPP_RECEIPT_META_KEY = 'org.paymentauth/receipt'
export const MPP_PAYMENT_REQUIRED_META_KEY = 'org.paymentauth/payment-required'

/** What a door binds the claim to, as for the other ways to pay. */
export interface ChargeCallContext { resource: string, requestKey: string, callerRef?: string }

const invalid = (message: string): Refusal => refusal('MPP_CREDENTIAL_INVALID', `${message}; nothing moved`)

/**
 * The credential as the Authorization header would carry it (mppx's Credential.serialize), so
 * it is read by the same code as on HTTP: bounded first (an attacker's JSON), then serialized.
 */
function credentialHeader (value: unknown): string | Refusal {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return invalid('the credential is not an object { challenge, payload }')
  const beyond = payloadBeyondBounds(value)
  if (beyond !== undefined) return invalid(beyond.replace('payment payload', 'credential'))
  try {
    return Credential.serialize(value as Credential.Credential)
  } catch {
    return invalid('the credential is not a Payment credential { challenge, payload }')
  }
}

/**
 * MPP's Solana charge for a door that answers once the product ran (MCP's `_meta` credential):
 * the core's claim-and-settle shape over the HTTP door's method (lib/mpp/mpp-payments.ts), so a
 * credential is read, bound and claimed by the same rules whichever door carries it.
 */
export function chargeToolMethod (mpp: MppPayments): ClaimAndSettle<PaidServiceName, ChargeCallContext & { flow: 'mpp' }, HeldPayment> {
  const settlers = new WeakMap<HeldPayment, SettlePayment>()
  return {
    async verifyAndClaim (credential, service, context) {
      const header = credentialHeader(credential)
      if (typeof header !== 'string') return header
      const read = mpp.read(header, service, context.resource)
      if (read.kind === 'refused') return read
      const verdict = await mpp.verifyAndClaim(read.payment, service, context)
      if (verdict.kind !== 'held') return verdict
      settlers.set(verdict.payment, verdict.settle)
      return { kind: 'held', payment: verdict.payment }
    },
    async settle (payment, answer) {
      const settle = settlers.get(payment)
      if (settle === undefined) throw new Error('settle of a payment this method did not hold')
      settlers.delete(payment)
      return await settle(answer)
    }
  }
}

/** The receipt MCP carries in `_meta` (mppx's MCP transport): the Receipt, and the challenge it answers. */
export function chargeToolReceipt (settled: Record<string, unknown>, credential: unknown, nowMs: number = Date.now()): Record<string, unknown> {
  const challengeId = (credential as { challenge?: { id?: unknown } }).challenge?.id
  return { ...chargeReceipt(settled, nowMs), challengeId }
}
