import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { errorBody, type ErrorBody } from '../errors/error-body.js'
import type { DeliveryCore } from '../delivery/paid-delivery.js'
import { refusal, refusalOf, type Refusal } from '../delivery/refusal.js'
import type { PaidServiceName } from '../payment/catalog.js'
import { withToolDiscovery } from '../x402/discovery-extension.js'
import type { X402Payments } from '../x402/x402-payments.js'
import { documentResult, errorResult, paymentRequiredResult } from './tool-results.js'
import { toolResourceUrl, X402_PAYMENT_RESPONSE_META_KEY } from './x402-meta.js'

export interface PaidToolCallDeps {
  core: Pick<DeliveryCore, 'begin' | 'refused'>
  payments: Pick<X402Payments, 'paymentRequired' | 'verifyAndClaim' | 'settle'>
  /** Counts a call that paid nothing (no payload). */
  countUnpaid: (service: PaidServiceName) => void
  /** The common error body of a thrown error (AppError with its code; anything else INTERNAL_ERROR, logged). */
  errorBodyOf: (error: unknown) => ErrorBody
  /** PROOF_FAILURE_LIMIT for this caller, as on HTTP: throws 429 RATE_LIMITED before any RPC call once its payments failed too often; else counts the call as under way until the returned function is called. */
  checkFailureLimit: () => () => void
  /** Who is calling (the client's address), for the failure limit. */
  client: string
  requestId: string
}

export interface PaidToolCall {
  tool: string
  service: PaidServiceName
  /** `params._meta["x402/payment"]` as it came, or undefined. */
  payload: unknown
  /** Runs the tool: its document. */
  run: () => Promise<object>
  /** Aborted when the client is gone: nothing is settled for nobody. */
  signal?: AbortSignal
}

/** Why payment is asked again: the code first, so a client can branch on it. */
function reason (refused: Refusal): string {
  const wait = refused.retryAfterSeconds === undefined ? '' : ` (retry in ${refused.retryAfterSeconds} s)`
  return `${refused.code}: ${refused.message}${wait}`
}

/**
 * The MCP door of the paid-delivery core: a paid tool call under x402's MCP transport
 * (tool-result binding). It only translates: the payload from `params._meta`, the PaymentRequired
 * or the document with its SettlementResponse out. The lifecycle (claim before the tool runs,
 * money moves only once the document is ready, a failed tool gives the claim back, one audit row
 * per payment) is the core's, as on HTTP.
 */
export function createPaidToolCaller (deps: PaidToolCallDeps) {
  const { core, payments, errorBodyOf, client, requestId } = deps
  const bodyOf = (refused: Refusal) => errorBody({ id: requestId }, refused.statusCode, refused.code, refused.message,
    { ...refused.details, ...(refused.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: refused.retryAfterSeconds }) })

  return async function callPaidTool (call: PaidToolCall): Promise<CallToolResult> {
    const { service } = call
    const resource = toolResourceUrl(call.tool)
    const askPayment = (why: string) => paymentRequiredResult(withToolDiscovery(payments.paymentRequired(service, resource, why), service))
    if (call.payload === undefined) {
      deps.countUnpaid(service)
      return askPayment(`PAYMENT_REQUIRED: ${call.tool} is paid; pay one of accepts and call again with the payment`)
    }

    let claim
    let underWay = () => {}
    try {
      underWay = deps.checkFailureLimit()
      claim = await payments.verifyAndClaim(call.payload, service, { resource, flow: 'mcp' })
    } catch (error) {
      const known = refusalOf(error)
      if (known === undefined) throw error
      claim = known
    }
    if ('refused' in claim) {
      const refused = core.refused(service, client, claim)
      underWay()
      // A client held back by the failure limit is told so; every other refusal asks for payment again, with the reason.
      return refused.code === 'RATE_LIMITED' ? errorResult(bodyOf(refused)) : askPayment(reason(refused))
    }
    underWay()
    const held = claim
    const delivery = core.begin(held, async () => await payments.settle(held), client)
    let status = 200
    const record = async () => await delivery.record({ requestId, status: () => status })

    let document: object
    try {
      document = await call.run()
    } catch (error) {
      const body = errorBodyOf(error)
      status = body.statusCode
      await delivery.fail(body.code)
      await record()
      return errorResult(body)
    }
    if (call.signal?.aborted === true) {
      status = 499
      await delivery.abort()
      await record()
      return errorResult(bodyOf(refusal('SERVICE_UNAVAILABLE', 'The call was cancelled before settlement; nothing was charged')))
    }

    const result = await delivery.complete()
    if (result.refused === true) {
      status = result.statusCode
      await record()
      return askPayment(reason(result))
    }
    await record()
    return documentResult(document, { [X402_PAYMENT_RESPONSE_META_KEY]: result.receipt })
  }
}
