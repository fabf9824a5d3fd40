import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { AppError } from '../errors/app-error.js'
import type { ErrorBody } from '../errors/error-body.js'
import type { ErrorCode } from '../errors/error-codes.js'
import type { PaidServiceName } from '../payment/catalog.js'
import { documentResult, errorResult, paymentRequiredResult } from './tool-results.js'
import { toolResourceUrl, X402_PAYMENT_RESPONSE_META_KEY } from './x402-meta.js'

/** What a claimed x402 payment must tell the audit log. */
export interface ToolPaymentClaim {
  signature: string
  payer: string
  amount: bigint
}

type Refusal = { ok: false, code: ErrorCode, message: string, retryAfterSeconds?: number }

/**
 * The x402 core as the tools use it (`fastify.x402`): the same requirements, verification,
 * exactly-once claims and settlement as the HTTP x402 flow.
 */
export interface ToolPayments<Claim extends ToolPaymentClaim> {
  paymentRequired: (service: PaidServiceName, resourceUrl: string, error?: string) => object
  verifyAndClaim: (payload: unknown, service: PaidServiceName, context: { resource: string, flow: 'mcp' }) =>
  Promise<{ ok: true, claim: Claim } | (Refusal & { statusCode: number })>
  settle: (claim: Claim) => Promise<{ ok: true, response: object } | (Refusal & { pending: boolean })>
  release: (claim: Claim) => Promise<void>
}

/** One audit row of a verified MCP payment. */
export interface ToolAuditEntry {
  service: PaidServiceName
  resource: string
  payer: string
  signature: string
  amount: bigint
  outcome: string
  status: number
  latencyMs: number
}

export interface PaidToolCallDeps<Claim extends ToolPaymentClaim> {
  payments: ToolPayments<Claim>
  audit: (entry: ToolAuditEntry) => Promise<void>
  /** Unpaid calls and refused payments are counted, never stored one by one. */
  countUnpaid: (service: PaidServiceName, outcome: string) => void
  /** The common error body of a thrown error (AppError with its code; anything else INTERNAL_ERROR, logged). */
  errorBodyOf: (error: unknown) => ErrorBody
  /**
   * PROOF_FAILURE_LIMIT for this caller, as on HTTP: `check` throws 429 RATE_LIMITED once its
   * payments failed too often (before any RPC call), `record` counts a refusal that was its doing.
   */
  failureLimit?: { check: () => void, record: (code: string) => void }
  now?: () => number
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
function reason (refusal: Refusal): string {
  const wait = refusal.retryAfterSeconds === undefined ? '' : ` (retry in ${refusal.retryAfterSeconds} s)`
  return `${refusal.code}: ${refusal.message}${wait}`
}

/**
 * A paid tool call under x402's MCP transport (tool-result binding), with the rules of the HTTP
 * x402 flow: no payload, the PaymentRequired and the tool does not run; a payload is verified and
 * its transaction claimed in the payment store before the tool runs; money moves (settle) only once
 * the document is ready; a tool that fails gives the claim back, so the same payload buys the next
 * try. Every verified payment leaves one audit row.
 */
export function createPaidToolCaller<Claim extends ToolPaymentClaim> (deps: PaidToolCallDeps<Claim>) {
  const { payments, audit, countUnpaid, errorBodyOf } = deps
  const now = deps.now ?? Date.now

  return async function callPaidTool (call: PaidToolCall): Promise<CallToolResult> {
    const { service } = call
    const resource = toolResourceUrl(call.tool)
    if (call.payload === undefined) {
      countUnpaid(service, 'PAYMENT_REQUIRED')
      return paymentRequiredResult(payments.paymentRequired(service, resource, `PAYMENT_REQUIRED: ${call.tool} is paid; pay one of accepts and call again with the payment`))
    }

    try {
      deps.failureLimit?.check()
    } catch (error) {
      return errorResult(errorBodyOf(error))
    }
    const verified = await payments.verifyAndClaim(call.payload, service, { resource, flow: 'mcp' })
    if (!verified.ok) {
      countUnpaid(service, verified.code)
      deps.failureLimit?.record(verified.code)
      return paymentRequiredResult(payments.paymentRequired(service, resource, reason(verified)))
    }

    const { claim } = verified
    const started = now()
    const record = async (outcome: string, status: number) => await audit({
      service, resource, payer: claim.payer, signature: claim.signature, amount: claim.amount, outcome, status, latencyMs: now() - started
    })

    let document: object
    try {
      document = await call.run()
    } catch (error) {
      const body = errorBodyOf(error)
      await payments.release(claim)
      await record(body.code, body.statusCode)
      return errorResult(body)
    }

    if (call.signal?.aborted === true) {
      await payments.release(claim)
      await record('CLIENT_ABORTED', 499)
      return errorResult(errorBodyOf(new AppError('SERVICE_UNAVAILABLE', 'The call was cancelled before settlement; nothing was charged')))
    }

    let settled
    try {
      settled = await payments.settle(claim)
    } catch (error) {
      // Unknown whether the transaction went out: the claim stays pending until its lease ends, and
      // a retry with the same payload asks the chain first (delivered if it landed, never twice).
      const body = errorBodyOf(error)
      await record(body.code, body.statusCode)
      return errorResult(body)
    }
    if (!settled.ok) {
      await record(settled.code, settled.pending ? 503 : 402)
      return paymentRequiredResult(payments.paymentRequired(service, resource, reason(settled)))
    }
    await record('DELIVERED', 200)
    return documentResult(document, { [X402_PAYMENT_RESPONSE_META_KEY]: settled.response })
  }
}
