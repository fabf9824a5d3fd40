import { randomUUID } from 'node:crypto'
import { TaskState, type Message, type Task } from '@a2a-js/sdk'
import { AgentEvent, type ExecutionEventBus, type RequestContext, type ServerCallContext } from '@a2a-js/sdk/server'
import type { ErrorBody } from '../../errors/error-body.js'
import type { DeliveryCore } from '../../delivery/paid-delivery.js'
import { deliverPaidCall } from '../../delivery/paid-call.js'
import { goneBeforeSettlement, refusal, refusalText, type Refusal } from '../../contract/refusal.js'
import { requestKey } from '../../contract/request-key.js'
import type { MerchantTools } from '../../tools/merchant-tools.js'
import type { Catalogue } from '../../catalogue/catalogue.js'
import type { PaidServiceName } from '../../payment/catalog.js'
import type { X402Payments } from '../../x402/x402-payments.js'
import { malformed } from './a2a-errors.js'
import { expectedShape, readPurchase, skillResourceUrl, type Purchase } from './skills.js'
import { MAX_CONTEXT_ID_LENGTH, newTaskId, readTaskId } from './task-id.js'
import { dataOf, taskAt, type TaskRef } from './task-states.js'
import { TASK_META, X402_META } from './x402-extension.js'
import { publishChallenge } from '../../metrics/events.js'
import { boundedMemo } from '../../http/bounded-memo.js'

/** What the door needs of the HTTP request carrying an A2A call (ServerCallContext.state). */
export interface CallState {
  /** The client's address: rate and failure limits. */
  client: string
  requestId: string
  /** Resolves once the answer went out carrying the finished task (true), or not (false: the client left, or it carried something else). */
  reached: () => Promise<boolean>
  /** The client closed the connection before its answer was written. */
  clientGone: () => boolean
  errorBodyOf: (error: unknown) => ErrorBody
  /** Set once this call pays for its task: its own delivery records whether the answer reached the buyer. */
  paying?: boolean
}

export const CALL_STATE = 'token-merchant/call'

export function callStateOf (context: ServerCallContext): CallState {
  const call = context.state.get(CALL_STATE) as CallState | undefined
  if (call === undefined) throw new Error('A2A call handled outside of its HTTP request')
  return call
}

export interface SkillSellerDeps {
  core: Pick<DeliveryCore, 'begin' | 'refused' | 'redelivered'>
  payments: Pick<X402Payments, 'paymentRequired' | 'verifyAndClaim' | 'settle'>
  tools: Pick<MerchantTools, 'precheck' | 'run'>
  /** PROOF_FAILURE_LIMIT, as on HTTP and MCP: throws 429 RATE_LIMITED before any RPC call; else counts the attempt under way until called. */
  checkFailureLimit: (client: string) => () => void
  /** Counts a request that paid nothing. */
  countUnpaid: (service: PaidServiceName) => void
  /** The x402 network (CAIP-2) named in a failure's receipt. */
  network: string
  /** The products sold as skills. */
  catalogue: Catalogue
}

/** Task ids whose decoding is kept: a few calls' worth, each at most MAX_TASK_ID_LENGTH. */
const TASK_IDS_KEPT = 256

type TaskBase = TaskRef & { history?: Message[], metadata?: Record<string, unknown> }

/**
 * The A2A door of the paid-delivery core, under the a2a-x402 extension. It only translates: a new
 * purchase is answered input-required with the x402 v2 PaymentRequired (nothing stored, nothing
 * run); the payload that comes back on the same task is verified, claimed, the skill run, the
 * payment settled and redeemed by the core's steps of a paid call (lib/delivery/paid-call.ts), as
 * on MCP (audit flow `a2a`), and the task completes with the document as a data artifact and the
 * SettleResponse as receipt.
 */
export function createSkillSeller (deps: SkillSellerDeps) {
  const { core, payments } = deps
  // A call reads its task's id more than once (the store rebuilds the task, the executor sells
  // it): decoded and checked once, the recent ones kept.
  const readTask = boundedMemo(TASK_IDS_KEPT, id => readTaskId(id, deps.catalogue))

  function paymentRequired (task: TaskBase, purchase: Purchase, refused?: Refusal): Task {
    const why = refused === undefined ? undefined : reason(refused)
    return taskAt(task, {
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      text: why ?? `${purchase.service} is paid: pay one of x402.payment.required's accepts and send the payload in x402.payment.payload on this task`,
      payment: 'payment-required',
      x402: { required: payments.paymentRequired(purchase.service, skillResourceUrl(purchase), why), ...(refused === undefined ? {} : { error: refused.code }) },
      metadata: { [TASK_META.purchase]: { skill: purchase.service, input: purchase.args } }
    })
  }

  /**
   * A refusal: the task failed with our code. One the same payment may pass later (Retry-After:
   * a settlement pending, a payment in progress, a limit) says so, with the wait as a field, and
   * offers no accepts: the payment may have moved, and an auto-paying client must not pay again.
   */
  function refusedTask (task: TaskBase, refused: Refusal): Task {
    return taskAt(task, {
      state: TaskState.TASK_STATE_FAILED,
      text: reason(refused),
      payment: 'payment-failed',
      x402: { error: refused.code, receipts: [{ success: false, errorReason: refused.code, transaction: '', network: deps.network }] },
      ...(refused.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: refused.retryAfterSeconds })
    })
  }

  function completed (task: TaskBase, document: unknown, receipt: Record<string, unknown>, redelivered: boolean): Task {
    return taskAt(task, {
      state: TaskState.TASK_STATE_COMPLETED,
      text: redelivered ? 'Delivered again: the answer this payment bought; nothing charged' : 'Paid and delivered',
      payment: 'payment-completed',
      x402: { receipts: [receipt] },
      document,
      metadata: redelivered ? { [TASK_META.redelivered]: true } : {}
    })
  }

  /**
   * A message that starts a purchase: read, checked as the HTTP route checks its parameters
   * (before any payment), answered with the payment-required task. Nothing is stored: the task id
   * carries what it sells.
   */
  async function askPayment (message: Message): Promise<Task> {
    const data = dataOf(message)
    if (data === undefined) throw malformed(`The message carries no data part naming a skill; send one data part: ${expectedShape(deps.catalogue)}`)
    const purchase = readPurchase(data.value, deps.catalogue)
    if ('problems' in purchase) throw malformed(`The data part cannot be read (${purchase.problems.join('; ')}); send one data part: ${expectedShape(deps.catalogue)}`)
    if (message.contextId.length > MAX_CONTEXT_ID_LENGTH) throw malformed(`contextId is longer than ${MAX_CONTEXT_ID_LENGTH} characters`)
    await deps.tools.precheck(purchase.tool, purchase.args)
    const contextId = message.contextId === '' ? randomUUID() : message.contextId
    const id = newTaskId(purchase, contextId)
    deps.countUnpaid(purchase.service)
    publishChallenge({ service: purchase.service, door: 'a2a' })
    return paymentRequired({ id, contextId, history: [{ ...message, taskId: id, contextId }] }, purchase)
  }

  /** A task awaiting payment, rebuilt from its id on any instance; undefined for an id that is not ours. */
  function unpaidTask (id: string): Task | undefined {
    const unpaid = readTask(id)
    return unpaid === undefined ? undefined : paymentRequired({ id, contextId: unpaid.contextId }, unpaid.purchase)
  }

  /** The id is one of ours (read, never trusted), with no store read. */
  function namesTask (id: string): boolean {
    return readTask(id) !== undefined
  }

  /** A task its client ended before paying: cancelled (tasks/cancel) or its terms declined (payment-rejected). Answered, not stored. */
  function ended (task: TaskRef, why: 'cancelled' | 'declined'): Task {
    return why === 'declined'
      ? taskAt(task, { state: TaskState.TASK_STATE_CANCELED, text: 'The client declined the payment terms; nothing was charged', payment: 'payment-rejected' })
      : taskAt(task, { state: TaskState.TASK_STATE_CANCELED, text: 'Cancelled before any payment; nothing was charged', payment: 'payment-rejected' })
  }

  /** A message on an existing task: the payment for it (or the client declining it). */
  async function execute (requestContext: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const publish = (task: Task) => bus.publish(AgentEvent.task(task))
    const task = requestContext.task
    const unpaid = task === undefined ? undefined : readTask(task.id)
    if (task === undefined || unpaid === undefined) throw malformed(`Unknown task; start a purchase with a message without taskId: ${expectedShape(deps.catalogue)}`)
    const { purchase } = unpaid
    const base: TaskBase = { id: task.id, contextId: task.contextId, history: task.history, metadata: task.metadata }
    const metadata = requestContext.userMessage.metadata ?? {}
    if (metadata[X402_META.status] === 'payment-rejected') {
      publish(ended(base, 'declined'))
      return
    }
    const payload = metadata[X402_META.payload]
    if (payload === undefined) {
      deps.countUnpaid(purchase.service)
      publishChallenge({ service: purchase.service, door: 'a2a' })
      publish(paymentRequired(base, purchase, refusal('PAYMENT_REQUIRED', `no payment in ${X402_META.payload}; pay one of the accepts and send it on this task`)))
      return
    }
    await pay(base, purchase, payload, callStateOf(requestContext.context), publish)
  }

  async function pay (base: TaskBase, purchase: Purchase, payload: unknown, call: CallState, publish: (task: Task) => void): Promise<void> {
    const resource = skillResourceUrl(purchase)
    call.paying = true
    const paidWith = (signature: string) => ({ ...base, metadata: { ...base.metadata, [TASK_META.payment]: signature } })
    const outcome = await deliverPaidCall(core, {
      method: payments,
      payload,
      service: purchase.service,
      // A2A's transport is x402 v2 only: a v1 payload names no resource, so it could not be bound to the skill.
      context: { resource, flow: 'a2a', version: 2, requestKey: requestKey('a2a', resource) },
      client: call.client,
      requestId: call.requestId,
      checkFailureLimit: deps.checkFailureLimit,
      run: async () => await deps.tools.run(purchase.tool, purchase.args),
      errorBodyOf: call.errorBodyOf,
      cancelled: call.clientGone,
      reached: call.reached,
      // Stored from here: a task whose payment was accepted lives in the store, on every instance.
      onHeld: held => publish(taskAt(paidWith(held.signature), { state: TaskState.TASK_STATE_WORKING, text: 'Payment verified; running the skill', payment: 'payment-verified' }))
    })
    switch (outcome.kind) {
      case 'refused':
        publish(refusedTask(base, outcome.refusal))
        return
      // The answer this payment bought, kept: served again, nothing charged, nothing computed.
      case 'redelivered':
        publish(completed(paidWith(outcome.answer.signature), JSON.parse(outcome.answer.body), outcome.answer.receipt, true))
        return
      case 'failed':
        publish(taskAt(paidWith(outcome.payment.signature), {
          state: TaskState.TASK_STATE_FAILED,
          text: `${outcome.body.code}: ${outcome.body.message}; nothing was charged: the same payment buys another task`,
          payment: 'payment-failed',
          x402: { error: outcome.body.code }
        }))
        return
      case 'cancelled':
        publish(refusedTask(paidWith(outcome.payment.signature), goneBeforeSettlement('The request was closed')))
        return
      case 'settlement-refused':
        publish(refusedTask(paidWith(outcome.payment.signature), outcome.refusal))
        return
      case 'delivered':
        publish(completed(paidWith(outcome.payment.signature), outcome.document, outcome.receipt, false))
    }
  }

  return { askPayment, unpaidTask, namesTask, ended, execute }
}

export type SkillSeller = ReturnType<typeof createSkillSeller>

/** Why payment is asked again or failed: the code first, so a client can branch on it. */
function reason (refused: Refusal): string {
  return refusalText(refused, 'retry the same payment on a new task')
}
