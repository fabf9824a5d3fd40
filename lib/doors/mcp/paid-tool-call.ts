import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { errorBody, type ErrorBody } from '../../errors/error-body.js'
import type { DeliveryCore } from '../../delivery/paid-delivery.js'
import { deliverPaidCall } from '../../delivery/paid-call.js'
import { requestKey } from '../../contract/request-key.js'
import { goneBeforeSettlement, refusal, refusalText, type Refusal } from '../../contract/refusal.js'
import type { Catalogue } from '../../catalogue/catalogue.js'
import type { PaidServiceName } from '../../payment/catalog.js'
import { withToolDiscovery } from '../../x402/discovery-extension.js'
import type { X402Payments } from '../../x402/x402-payments.js'
import { documentResult, errorResult, paymentRequiredResult } from './tool-results.js'
import { toolResourceUrl } from './tool-resource.js'
import { REDELIVERED_META_KEY, X402_PAYMENT_META_KEY, X402_PAYMENT_RESPONSE_META_KEY } from '../../../schemas/mcp.js'
import { publishChallenge } from '../../metrics/events.js'
import { chargeToolReceipt, MPP_CREDENTIAL_META_KEY, MPP_PAYMENT_REQUIRED_META_KEY, MPP_RECEIPT_META_KEY, type chargeToolMethod } from './mpp-charge.js'

/** MPP's Solana charge on this door: the challenges an unpaid call is answered with, and the method a credential pays by. */
export interface ToolCharge {
  challenges: (service: PaidServiceName, resourceUrl: string) => readonly object[]
  method: ReturnType<typeof chargeToolMethod>
}

export interface PaidToolCallDeps {
  core: Pick<DeliveryCore, 'begin' | 'refused' | 'redelivered'>
  payments: Pick<X402Payments, 'paymentRequired' | 'verifyAndClaim' | 'settle'>
  /** The products sold: a PaymentRequired carries its product's discovery extension. */
  catalogue: Catalogue
  /** Counts a call that paid nothing (no payload). */
  countUnpaid: (service: PaidServiceName) => void
  /** The common error body of a thrown error (AppError with its code; anything else INTERNAL_ERROR, logged). */
  errorBodyOf: (error: unknown) => ErrorBody
  /** PROOF_FAILURE_LIMIT for this caller, as on HTTP: throws 429 RATE_LIMITED before any RPC call once its payments failed too often; else counts the call as under way until the returned function is called. */
  checkFailureLimit: (client: string) => () => void
  /** MPP's charge, unless MPP_CHARGE=false (a credential is then no payment). */
  charge?: ToolCharge
  /** Who is calling (the client's address), for the failure limit. */
  client: string
  requestId: string
  /** Names a call of this HTTP request for the store (its session and JSON-RPC id, hashed), so a cancel notice can find it; undefined without a session. */
  callerRefOf: (jsonRpcId: string | number) => string | undefined
  /** Resolves once this HTTP request's answer went out (true) or its client left first (false). */
  answered: () => Promise<boolean>
  /** A cancel notice for this call reached this process. */
  cancelledHere: (callerRef: string | undefined) => boolean
}

export interface PaidToolCall {
  tool: string
  service: PaidServiceName
  /** `params._meta["x402/payment"]` as it came, or undefined. */
  payload: unknown
  /** `params._meta["org.paymentauth/credential"]` (MPP) as it came, or undefined. */
  credential: unknown
  /** The tool's arguments: with the tool, what the payment buys. */
  arguments: unknown
  /** The JSON-RPC id of the call. */
  requestId: string | number
  /** Runs the tool: its document. */
  run: () => Promise<object>
  /** Aborted when the client is gone: nothing is settled for nobody. */
  signal?: AbortSignal
}

/**
 * The MCP door of the paid-delivery core: a paid tool call under x402's MCP transport
 * (tool-result binding). It only translates: the payload from `params._meta`, the PaymentRequired
 * or the document with its SettlementResponse out. The steps (claim before the tool runs, money
 * moves only once the document is ready, a failed tool gives the claim back, one audit row per
 * payment) are the core's (lib/delivery/paid-call.ts), as on A2A.
 */
export function createPaidToolCaller (deps: PaidToolCallDeps) {
  const { core, payments, errorBodyOf, client, requestId } = deps
  const bodyOf = (refused: Refusal) => errorBody({ id: requestId }, refused.statusCode, refused.code, refused.message,
    { ...refused.details, ...(refused.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: refused.retryAfterSeconds }) })

  return async function callPaidTool (call: PaidToolCall): Promise<CallToolResult> {
    const { service } = call
    const resource = toolResourceUrl(call.tool)
    const charge = deps.charge
    // The reason as fields a client reads (code, retryAfterSeconds), and as text for people in `error`.
    const askPayment = (why: Refusal, meta?: Record<string, unknown>) => paymentRequiredResult({
      ...withToolDiscovery(payments.paymentRequired(service, resource, refusalText(why)), deps.catalogue.product(service)),
      code: why.code,
      ...(why.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: why.retryAfterSeconds })
    }, meta)
    const credential = charge === undefined ? undefined : call.credential
    if (call.payload === undefined && credential === undefined) {
      deps.countUnpaid(service)
      publishChallenge({ service, door: 'mcp' })
      // x402's PaymentRequired as the result, MPP's challenges where mppx's MCP client reads them. Only
      // here: a refused payment is answered without them (as on HTTP), so an auto-paying MPP client does not pay twice.
      const challenges = charge === undefined ? undefined : { [MPP_PAYMENT_REQUIRED_META_KEY]: { httpStatus: 402, challenges: charge.challenges(service, resource) } }
      return askPayment(refusal('PAYMENT_REQUIRED', `${call.tool} is paid; pay one of accepts and call again with the payment`), challenges)
    }
    if (call.payload !== undefined && credential !== undefined) {
      return errorResult(bodyOf(refusal('PAYMENT_FORMS_CONFLICT', `One payment per call: send either _meta["${X402_PAYMENT_META_KEY}"] or _meta["${MPP_CREDENTIAL_META_KEY}"], not both`)))
    }

    const callerRef = deps.callerRefOf(call.requestId)
    const context = { resource, requestKey: requestKey('tools/call', resource, call.arguments), callerRef }
    const paid = {
      service,
      client,
      requestId,
      checkFailureLimit: deps.checkFailureLimit,
      run: call.run,
      errorBodyOf,
      // Cancelled: the SDK closed the call, or a cancel notice for it reached this process (perhaps
      // before its claim existed, so the store never saw it): nothing is settled.
      cancelled: () => call.signal?.aborted === true || deps.cancelledHere(callerRef),
      // The result reached the buyer if the HTTP answer carrying it went out and no cancel came for it.
      reached: async () => await deps.answered() && !deps.cancelledHere(callerRef)
    }
    const viaMpp = charge !== undefined && credential !== undefined
    const outcome = viaMpp
      ? await deliverPaidCall(core, { ...paid, method: charge.method, payload: credential, context: { ...context, flow: 'mpp' as const } })
      : await deliverPaidCall(core, { ...paid, method: payments, payload: call.payload, context: { ...context, flow: 'mcp' as const } })
    // Each protocol's receipt in its own key: x402's SettlementResponse, or MPP's Receipt with the challenge it answers.
    const receiptMeta = (receipt: Record<string, unknown>) => viaMpp ? { [MPP_RECEIPT_META_KEY]: chargeToolReceipt(receipt, credential) } : { [X402_PAYMENT_RESPONSE_META_KEY]: receipt }
    switch (outcome.kind) {
      // A refusal the same payment may pass later (Retry-After: held back by a limit, a settlement
      // pending, a payment in progress) is a tool error with no accepts: the payment may have moved,
      // and an auto-paying client must not pay again. Every other one asks for payment again, with the reason.
      case 'refused': return outcome.refusal.retryAfterSeconds !== undefined ? errorResult(bodyOf(outcome.refusal)) : askPayment(outcome.refusal)
      // The answer this payment bought, kept: served again, nothing charged, nothing computed.
      case 'redelivered': return documentResult(JSON.parse(outcome.answer.body) as object, { ...receiptMeta(outcome.answer.receipt), [REDELIVERED_META_KEY]: true })
      case 'failed': return errorResult(outcome.body)
      case 'cancelled': return errorResult(bodyOf(goneBeforeSettlement('The call was cancelled')))
      // After the sent mark: the payment may have moved (pending), or the chain said it did not (failed): never new accepts.
      case 'settlement-refused': return errorResult(bodyOf(outcome.refusal))
      case 'delivered': return documentResult(outcome.document, receiptMeta(outcome.receipt))
    }
  }
}
