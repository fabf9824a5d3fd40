import type { AuditFlow, AuditLog } from '../../db/contracts/audit-log.js'
import type { KeptAnswer, PaymentClaims } from '../../db/contracts/payment-claims.js'
import { loggableError } from '../errors/loggable-error.js'
import { publishAttempt, publishSettlement } from '../metrics/events.js'
import type { HeldPayment, Settled, SettlePayment } from '../contract/held-payment.js'
import { internalError, paymentInProgress, refusalOf, settlementInterrupted, type Refusal } from '../contract/refusal.js'

/** A product's name in the catalogue, as a held payment carries it. */
type PaidServiceName = HeldPayment['service']

/** The answer a door is about to deliver, kept with the payment when it is redeemed. */
export interface AnswerDraft {
  status: number
  contentType: string
  body: string
}

export interface DeliveryCoreOptions {
  claims: PaymentClaims
  audit: AuditLog
  /** The lease of a claim; renewed every third of it while the holder works. */
  leaseMs: number
  /** How long a delivered answer is kept for re-delivery (DELIVERY_RETENTION_SECONDS). */
  retentionMs: number
  /** PROOF_FAILURE_LIMIT: counts a refused payment against the client when the refusal was its doing. */
  recordFailure: (client: string, code: string) => void
  /** PROOF_FAILURE_LIMIT: counts a handler failure, or a hang-up, for a payment the client holds (replays of one payment against a failing handler, or hanging up before settlement, are not free). */
  countHandlerFailure: (client: string) => void
  /** Unpaid requests and payments refused before a claim are counted, never stored one by one. */
  countUnpaid: (service: PaidServiceName, code: string) => void
  log: { warn: (details: object, message: string) => void, error: (details: object, message: string) => void }
  /** Runs the lease renewal every `ms` until stopped; an unref'd setInterval unless a test drives its own clock. */
  repeat?: RepeatEvery
}

/** Calls `task` every `ms` until the returned function stops it. */
export type RepeatEvery = (task: () => void, ms: number) => () => void

const repeatWithTimers: RepeatEvery = (task, ms) => {
  const timer = setInterval(task, ms)
  timer.unref()
  return () => clearInterval(timer)
}

/** Where a delivery stands: held (handler running), settling (money may move), done. */
export type DeliveryState = 'held' | 'settling' | 'done'

/** One paid delivery: the lifecycle every door drives (verify and claim happened before `begin`). */
export interface PaidDelivery {
  readonly payment: HeldPayment
  readonly state: DeliveryState
  /** DELIVERED, or the code the delivery ended with; 'PENDING' until then. */
  readonly outcome: string
  /** The handler answered `answer`: settle (or redeem) now, keeping the answer for re-delivery. Settled only if this request may deliver. */
  complete: (answer?: AnswerDraft) => Promise<Settled | Refusal>
  /** The handler failed with `code`: the claim is given back (a sent one stays for the chain to decide). */
  fail: (code: string) => Promise<void>
  /** The client left before settlement: the claim is given back. Ignored once settlement started. */
  abort: () => Promise<void>
  /** The audit row of this payment (one per payment, replaced by later attempts), once per delivery, after settlement. */
  record: (entry: RecordEntry) => Promise<void>
}

export interface RecordEntry {
  requestId: string
  status: () => number
  startedAt?: number
  /** The answer reached the buyer (the HTTP answer finished, the MCP result was written uncancelled). */
  reached: boolean
}

/** A kept answer delivered again: only its record is left to do. */
export interface Redelivered {
  readonly payment: HeldPayment
  readonly answer: KeptAnswer
  record: (entry: RecordEntry) => Promise<void>
}

/** The audit outcome of a payment whose money moved and whose answer did not reach the buyer: kept for re-delivery. */
export const NOT_REACHED = 'CLIENT_ABORTED_AFTER_PAYMENT'

/** The payment a kept answer was bought with, as a delivery of it through `flow` records it. */
function keptPayment (answer: KeptAnswer, flow: AuditFlow): HeldPayment {
  return {
    signature: answer.signature,
    claimId: '',
    payer: answer.payer,
    amount: answer.amount,
    service: answer.service as PaidServiceName,
    flow,
    resource: answer.resource,
    requestKey: answer.requestKey
  }
}

/**
 * The paid-delivery lifecycle, the same for the proof headers, x402 over HTTP (v1, v2) and MCP:
 * claimed → (handler ran) → settled and redeemed → delivered, or given back. The claim's lease is
 * renewed while the holder works; a holder that lost its claim never delivers (the store's
 * redeem and markSent say so); a claim that may have sent money is never released by a failure
 * or an abort, only by the chain's verdict (lib/x402/x402-settle.ts). Every attempt (refused
 * before a claim, re-delivered, or ended here) and every settlement is published on the
 * diagnostics channels (lib/metrics/events.ts), whichever door it came through.
 */
export function createDeliveryCore (options: DeliveryCoreOptions) {
  const { claims, audit, leaseMs, log } = options
  const repeat = options.repeat ?? repeatWithTimers

  /**
   * One audit row per payment; a delivered answer is marked reached or not with it, in one store
   * operation (one that reached the buyer is no longer re-delivered without its payment-identifier).
   */
  async function recordDelivery (payment: HeldPayment, outcome: string, entry: RecordEntry, startedAt: number, redelivered = false): Promise<void> {
    const delivered = outcome === 'DELIVERED'
    const settledOutcome = delivered && !entry.reached ? NOT_REACHED : outcome
    await audit.record({
      requestId: entry.requestId,
      service: payment.service,
      resource: payment.resource,
      payer: payment.payer,
      signature: payment.signature,
      amount: payment.amount,
      outcome: settledOutcome,
      verified: true,
      status: entry.status(),
      latencyMs: performance.now() - (entry.startedAt ?? startedAt),
      flow: payment.flow
    }, delivered ? { reached: entry.reached, redelivered } : undefined).catch((error: unknown) =>
      log.error({ error: loggableError(error), signature: payment.signature, outcome: settledOutcome, reached: entry.reached },
        'audit row not written; a delivered answer is not marked either: once its holder\'s lease ran out the same payment fetches it again'))
  }

  /** A kept answer served again through `flow` (nothing settled, nothing computed): its row says DELIVERED once it reached the buyer. */
  function redelivered (answer: KeptAnswer, flow: AuditFlow): Redelivered {
    const startedAt = performance.now()
    publishAttempt({ service: answer.service, flow, outcome: 'DELIVERED' })
    const payment = keptPayment(answer, flow)
    let recorded = false
    return {
      payment,
      answer,
      async record (entry) {
        if (recorded) return
        recorded = true
        // Lost again: the row keeps what it says (a DELIVERED row stays, revenue included).
        if (!entry.reached) return
        await recordDelivery(payment, 'DELIVERED', entry, startedAt, true)
      }
    }
  }

  /**
   * A kept answer handed to a caller after its paying call ended (an A2A task read with GetTask
   * after a `returnImmediately` purchase): marked reached, so the payment alone no longer fetches
   * it again; its row says DELIVERED. Nothing settled, nothing counted as an attempt.
   */
  async function handedOver (signature: string, flow: AuditFlow, requestId: string): Promise<void> {
    const startedAt = performance.now()
    const answer = await claims.keptAnswer(signature)
    if (answer === undefined || answer.reached === true) return
    await recordDelivery(keptPayment(answer, flow), 'DELIVERED', { requestId, status: () => 200, reached: true }, startedAt, true)
  }

  /** A payment that came through `flow` and was refused before any claim: counted (not stored), and against the client when it was its doing. */
  function refused (service: PaidServiceName, flow: AuditFlow, client: string, answer: Refusal): Refusal {
    publishAttempt({ service, flow, outcome: answer.code })
    options.countUnpaid(service, answer.code)
    options.recordFailure(client, answer.code)
    return answer
  }

  function begin (payment: HeldPayment, settle: SettlePayment, client: string): PaidDelivery {
    let state: DeliveryState = 'held'
    let outcome = 'PENDING'
    let recorded = false
    let settling: Promise<unknown> | undefined
    const startedAt = performance.now()
    const stopRenewal = repeat(() => {
      claims.renew(payment.signature, payment.claimId, leaseMs).then(held => {
        if (!held) log.warn({ signature: payment.signature }, 'the claim was taken over while this request worked; it will not deliver')
      }, (error: unknown) => log.warn({ error: loggableError(error), signature: payment.signature }, 'claim lease not renewed'))
    }, Math.max(1000, Math.floor(leaseMs / 3)))

    function finish (code: string) {
      state = 'done'
      outcome = code
      stopRenewal()
      publishAttempt({ service: payment.service, flow: payment.flow, outcome: code })
    }

    // A release that fails (the database went away) leaves the claim held until its lease runs out,
    // after which the same payment works again: logged, not thrown at the client.
    async function giveBack (code: string) {
      finish(code)
      try {
        await claims.release(payment.signature, payment.claimId)
      } catch (error) {
        log.warn({ error: loggableError(error), signature: payment.signature }, 'claim not released; it frees itself when its lease runs out')
      }
    }

    return {
      payment,
      get state () { return state },
      get outcome () { return outcome },

      async complete (answer) {
        if (state !== 'held') return paymentInProgress('no-longer-held')
        state = 'settling'
        let result: Settled | Refusal
        const settleStartedAt = performance.now()
        try {
          const kept = answer === undefined || options.retentionMs === 0 ? undefined : { ...answer, requestKey: payment.requestKey, retentionMs: options.retentionMs }
          settling = settle(kept)
          result = await (settling as Promise<Settled | Refusal>)
        } catch (error) {
          // Not known to be spent: nothing is delivered, and the claim is given back (a sent one
          // only ends its lease: the next attempt asks the chain).
          result = settlementInterrupted(refusalOf(error)) ?? internalError()
          if (result.code === 'INTERNAL_ERROR') log.error({ error: loggableError(error), signature: payment.signature }, 'settlement failed')
          await giveBack(result.code)
          return result
        }
        publishSettlement({
          service: payment.service,
          flow: payment.flow,
          outcome: result.kind === 'settled' ? 'settled' : result.code === 'X402_SETTLEMENT_PENDING' ? 'pending' : 'failed',
          durationMs: performance.now() - settleStartedAt
        })
        finish(result.kind === 'refused' ? result.code : 'DELIVERED')
        // A settlement that failed by the client's doing counts against it like a refused payment.
        if (result.kind === 'refused') options.recordFailure(client, result.code)
        return result
      },

      async fail (code) {
        if (state !== 'held') return
        options.countHandlerFailure(client)
        await giveBack(code)
      },

      async abort () {
        if (state !== 'held') return
        // Hanging up after the claim ran the product for nothing: a client that does it again and
        // again with the same unspent payment is held back like one whose handler keeps failing.
        options.countHandlerFailure(client)
        await giveBack('CLIENT_ABORTED')
      },

      async record (entry) {
        if (recorded) return
        recorded = true
        // A client that left during settlement: the row says how the settlement ended.
        if (state === 'settling') await settling?.catch(() => {})
        await recordDelivery(payment, outcome, entry, startedAt)
      }
    }
  }

  return { begin, refused, redelivered, handedOver }
}

export type DeliveryCore = ReturnType<typeof createDeliveryCore>
