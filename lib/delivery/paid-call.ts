import type { AuditFlow } from '../../db/contracts/audit-log.js'
import type { KeptAnswer } from '../../db/contracts/payment-claims.js'
import type { ErrorBody } from '../errors/error-body.js'
import type { Held, HeldPayment, Settled, SettlePayment } from '../contract/held-payment.js'
import type { Redelivery } from '../contract/redelivery.js'
import type { ClaimVerdict } from '../contract/claim-verdict.js'
import { refusalOf, type Refusal } from '../contract/refusal.js'
import type { DeliveryCore, PaidDelivery, Redelivered } from './paid-delivery.js'

/** What a payment method does for a door: verify and claim a payload for a purchase, then settle the payment it holds. */
export interface ClaimAndSettle<Service extends string, Context, Payment extends HeldPayment> {
  verifyAndClaim: (payload: unknown, service: Service, context: Context) => Promise<Held<Payment> | Redelivery | Refusal>
  settle: (payment: Payment, answer?: Parameters<SettlePayment>[0]) => Promise<Settled | Refusal>
}

/** One paid call as a door hands it over: the payment that came, what it buys, and how to tell what became of the buyer. */
export interface PaidCall<Service extends string, Context extends { flow: AuditFlow }, Payment extends HeldPayment> {
  method: ClaimAndSettle<Service, Context, Payment>
  payload: unknown
  service: Service
  /** What the method binds the claim to (resource, request key, …) and the audit flow of the door. */
  context: Context
  /** The client's address: the failure limit and the refusals counted against it. */
  client: string
  requestId: string
  /** PROOF_FAILURE_LIMIT: throws 429 RATE_LIMITED before any RPC call; else counts the call under way until the returned function is called. */
  checkFailureLimit: (client: string) => () => void
  /** Runs the product: the document it answers. */
  run: () => Promise<object>
  /** The common error body of what `run` threw (logs what is not an AppError). */
  errorBodyOf: (error: unknown) => ErrorBody
  /** The buyer is gone or cancelled the call: nothing may be settled for nobody. Asked once the product ran. */
  cancelled: () => boolean
  /** Resolves once the answer carrying the document reached the buyer (true) or not (false): the audit row says so. */
  reached: () => Promise<boolean>
  /** The payment is verified and claimed, the product about to run. */
  onHeld?: (payment: Payment) => void
}

/** What became of a paid call; each door translates it into its own wire format. */
export type PaidCallOutcome<Payment extends HeldPayment> =
  /** Refused before any claim: nothing stored, nothing run. */
  | { kind: 'refused', refusal: Refusal }
  /** A kept answer this payment bought, served again: nothing charged, nothing run. */
  | { kind: 'redelivered', answer: KeptAnswer }
  /** Settled and delivered: the document and the method's receipt. */
  | { kind: 'delivered', payment: Payment, document: object, receipt: Record<string, unknown> }
  /** The product failed: nothing settled, the claim given back. */
  | { kind: 'failed', payment: Payment, body: ErrorBody }
  /** The buyer left or cancelled before settlement: nothing settled, the claim given back. */
  | { kind: 'cancelled', payment: Payment }
  /** The settlement was refused: the document is withheld. */
  | { kind: 'settlement-refused', payment: Payment, refusal: Refusal }

/** Where a paid call stands once its payment was read: held (its delivery begun), a kept answer again, unpaid (nothing recorded), or refused (recorded). */
export type Admission =
  | { kind: 'held', delivery: PaidDelivery }
  | { kind: 'redelivered', again: Redelivered }
  | { kind: 'unpaid' }
  | { kind: 'refused', refusal: Refusal }

/**
 * The first phase of a paid call, on every door: the way to pay verifies and claims (`claim`,
 * which registers each attempt under way so it ends once a refusal was counted; a thrown refusal
 * is its verdict), then the core records a refusal, serves a kept answer again, or begins the
 * delivery. The second phase is the door's: MCP and A2A run the product and complete it
 * (deliverPaidCall); HTTP lets the route's handler run and completes as its answer leaves.
 */
export async function admitPayment<Payment extends HeldPayment> (
  core: Pick<DeliveryCore, 'begin' | 'refused' | 'redelivered'>,
  call: { service: string, flow: AuditFlow, client: string },
  claim: (attempt: (underWay: () => void) => void) => Promise<ClaimVerdict<Payment>>
): Promise<Admission> {
  const underWay: Array<() => void> = []
  try {
    let verdict: ClaimVerdict<Payment>
    try {
      verdict = await claim(done => { underWay.push(done) })
    } catch (error) {
      const known = refusalOf(error)
      if (known === undefined) throw error
      verdict = known
    }
    if (verdict.kind === 'unpaid') return verdict
    if (verdict.kind === 'refused') return { kind: 'refused', refusal: core.refused(call.service, call.flow, call.client, verdict) }
    if (verdict.kind === 'redelivered') return { kind: 'redelivered', again: core.redelivered(verdict.answer, call.flow) }
    return { kind: 'held', delivery: core.begin(verdict.payment, verdict.settle, call.client) }
  } finally {
    // After a refusal was counted: the attempt is no longer under way.
    for (const done of underWay) done()
  }
}

/**
 * The steps of one paid call, the same on every door that answers after the product ran (MCP,
 * A2A): the failure limit, verify and claim, a refusal or a re-delivery, then the delivery
 * lifecycle of the core (begin → run → fail, abort or complete → one audit row). The row of a
 * delivered answer waits for `reached`; every other row is written before this answers.
 */
export async function deliverPaidCall<Service extends string, Context extends { flow: AuditFlow }, Payment extends HeldPayment> (
  core: Pick<DeliveryCore, 'begin' | 'refused' | 'redelivered'>,
  call: PaidCall<Service, Context, Payment>
): Promise<PaidCallOutcome<Payment>> {
  const { method, service, client, requestId } = call
  const admitted = await admitPayment(core, { service, flow: call.context.flow, client }, async (attempt) => {
    attempt(call.checkFailureLimit(client))
    const claim = await method.verifyAndClaim(call.payload, service, call.context)
    return claim.kind === 'held' ? { ...claim, settle: async (answer) => await method.settle(claim.payment, answer) } : claim
  })
  if (admitted.kind === 'unpaid') throw new Error('a claim-and-settle method found no payment')
  if (admitted.kind === 'refused') return admitted
  if (admitted.kind === 'redelivered') {
    recordWhenReached(call, async reached => await admitted.again.record({ requestId, status: () => 200, reached }))
    return { kind: 'redelivered', answer: admitted.again.answer }
  }

  const { delivery } = admitted
  const payment = delivery.payment as Payment
  let status = 200
  const record = async (reached: boolean) => await delivery.record({ requestId, status: () => status, reached })
  call.onHeld?.(payment)

  let document: object
  try {
    document = await call.run()
  } catch (error) {
    const body = call.errorBodyOf(error)
    status = body.statusCode
    await delivery.fail(body.code)
    await record(false)
    return { kind: 'failed', payment, body }
  }
  if (call.cancelled()) {
    status = 499
    await delivery.abort()
    await record(false)
    return { kind: 'cancelled', payment }
  }
  const settled = await delivery.complete({ status: 200, contentType: 'application/json', body: JSON.stringify(document) })
  if (settled.kind === 'refused') {
    status = settled.statusCode
    await record(false)
    return { kind: 'settlement-refused', payment, refusal: settled }
  }
  recordWhenReached(call, record)
  return { kind: 'delivered', payment, document, receipt: settled.receipt }
}

/** The payment's audit row, once the answer went out (or the buyer left); a failure to write it is logged through the call's error body. */
function recordWhenReached (call: Pick<PaidCall<string, { flow: AuditFlow }, HeldPayment>, 'reached' | 'errorBodyOf'>, record: (reached: boolean) => Promise<void>): void {
  call.reached().then(record).catch((error: unknown) => call.errorBodyOf(error))
}
