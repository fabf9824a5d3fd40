import { Receipt } from 'mppx'
import { charge } from '@solana/mpp'
import type { ClaimVerdict } from '../contract/claim-verdict.js'
import type { Refusal } from '../contract/refusal.js'
import { storedResource } from '../contract/stored-resource.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import type { PaidServiceName } from '../payment/catalog.js'
import type { PaymentVerifier } from '../payment/payment-verifier.js'
import type { X402Payments } from '../x402/x402-payments.js'
import { readChargeCredential, type ChargePayment } from './charge-credential.js'
import type { ChargeTerms } from './charge-terms.js'

export interface MppPaymentsOptions {
  /** Pull: x402's rules, verification, claim and settlement of a signed transaction (the fee payer's protections with them). */
  x402: Pick<X402Payments, 'verifyAndClaimTransaction' | 'settle'>
  /** Push: the proof headers' check of a landed transaction and their claim. */
  proofs: Pick<PaymentVerifier, 'verifyAndClaim' | 'settle'>
  catalogue: Catalogue
  terms: ChargeTerms
  secretKey: string
  now?: () => number
}

/** What a charge credential buys the request: held (settled by `settle`), a kept answer again, or refused. */
export type MppVerdict = Exclude<ClaimVerdict, { kind: 'unpaid' }>

/**
 * MPP's Solana charge as a way to pay, on the two methods that already exist: its credential is
 * read and its challenge binding verified by the library (charge-credential.ts); a pull
 * transaction is then an x402 exact payment in all but its wire format (the same rules, claim
 * and settlement: one transaction is one payment whichever protocol carries it), and a push
 * signature a pay-then-prove proof whose payer the transaction names, paid exactly.
 */
export function createMppPayments (options: MppPaymentsOptions) {
  const now = options.now ?? Date.now

  /** Reads the credential: the payment it carries, or why it buys nothing. */
  function read (header: string, service: PaidServiceName, resource: string): { kind: 'read', payment: ChargePayment } | Refusal {
    return readChargeCredential(header, { resourceUrl: resource, amount: options.catalogue.product(service).price, terms: options.terms, secretKey: options.secretKey, nowMs: now() })
  }

  async function verifyAndClaim (payment: ChargePayment, service: PaidServiceName, context: { resource: string, requestKey: string, callerRef?: string }): Promise<MppVerdict> {
    if (payment.kind === 'pull') {
      const claim = await options.x402.verifyAndClaimTransaction(payment.transaction, service, { resource: context.resource, requestKey: context.requestKey, flow: 'mpp', callerRef: context.callerRef })
      if (claim.kind !== 'held') return claim
      const held = claim.payment
      return { kind: 'held', payment: held, settle: async (answer) => await options.x402.settle(held, answer) }
    }
    const verified = await options.proofs.verifyAndClaim({ signature: payment.signature as Parameters<PaymentVerifier['verifyAndClaim']>[0]['signature'] }, service, options.catalogue.product(service),
      { resource: storedResource(context.resource), requestKey: context.requestKey, buyerProven: false, exactAmount: true })
    if (verified.kind !== 'held') return verified
    // Claimed as a proof (one landed transaction is one payment), recorded as MPP's.
    const held = { ...verified.payment, flow: 'mpp' as const }
    return { kind: 'held', payment: held, settle: async (answer) => await options.proofs.settle(held, answer) }
  }

  return { read, verifyAndClaim }
}

export type MppPayments = ReturnType<typeof createMppPayments>

/**
 * The receipt of a delivery (mppx's Receipt shape): the transaction as its reference. Made from
 * the receipt the method that settled kept with the answer, so a re-delivery carries the same
 * reference (its timestamp is the re-delivery's). Built from our own values, so not parsed again.
 */
export function chargeReceipt (settled: Record<string, unknown>, nowMs: number = Date.now()): Receipt.Receipt {
  return { method: charge.name, reference: String(settled.transaction), status: 'success', timestamp: new Date(nowMs).toISOString() }
}

/** The `Payment-Receipt` header of a delivery (mppx's Receipt.serialize). */
export function chargeReceiptHeader (settled: Record<string, unknown>, nowMs: number = Date.now()): string {
  return Receipt.serialize(chargeReceipt(settled, nowMs))
}
