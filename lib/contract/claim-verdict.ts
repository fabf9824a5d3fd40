import type { Held, HeldPayment, SettlePayment } from './held-payment.js'
import type { Redelivery } from './redelivery.js'
import type { Refusal } from './refusal.js'

/**
 * What a way to pay made of the payment a request carries: held (settled by `settle`), a kept
 * answer again, no payment after all (its header carried none), or refused. Every door hands it
 * to the core's first phase (lib/delivery/paid-call.ts: admitPayment).
 */
export type ClaimVerdict<Payment extends HeldPayment = HeldPayment> = (Held<Payment> & { settle: SettlePayment }) | Redelivery | { kind: 'unpaid' } | Refusal
