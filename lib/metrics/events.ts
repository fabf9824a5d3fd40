import { channel } from 'node:diagnostics_channel'

/**
 * What the core reports for metrics and watches, as diagnostics channels: publishing costs a property read
 * when nobody listens (metrics off), and lib/ never depends on the metrics library.
 */

export type RpcCallOutcome = 'ok' | 'rpc_error' | 'http_error' | 'timeout' | 'unreachable' | 'bad_answer'

export interface RpcCallEvent {
  /** Which connection: payment, data, registry. */
  role: string
  /** The JSON-RPC method; a batch reports its method once per HTTP request. */
  method: string
  outcome: RpcCallOutcome
  durationMs: number
}

export interface RegistryRefreshEvent {
  outcome: 'ok' | 'failed'
  durationMs: number
}

/**
 * One payment that came, by any door, once its outcome is known: DELIVERED (a kept answer served
 * again included), or the code it was refused or failed with (refused before a claim, at
 * settlement, or the handler failed after the claim). The unpaid requests that only got a 402 are
 * no attempts.
 */
export interface PaymentAttemptEvent {
  service: string
  /** The door and form it came through: proof, x402-v1, x402-v2 (HTTP), mcp, a2a. */
  flow: string
  outcome: string
}

/** One settlement of a held payment (a proof redeemed, an x402 payment sent and confirmed), whatever the method. */
export interface SettlementEvent {
  service: string
  flow: string
  /** 'settled', or why not ('failed', 'pending'). */
  outcome: 'settled' | 'failed' | 'pending'
  durationMs: number
}

/** A 402 challenge sent to a call that came without payment, by the door it came through. */
export interface ChallengeEvent {
  service: string
  door: 'http' | 'mcp' | 'a2a'
}

/** What the x402 fee payer spent on one settlement, by how it ended (published once it is known; never while pending). */
export interface FeePayerSpendEvent {
  outcome: 'delivered' | 'failed_on_chain' | 'refused_at_send'
  lamports: bigint
}

const rpcCalls = channel('token-merchant:rpc-call')
const registryRefreshes = channel('token-merchant:registry-refresh')
const attempts = channel('token-merchant:payment-attempt')
const settlements = channel('token-merchant:settlement')
const feePayerSpends = channel('token-merchant:fee-payer-spend')
const challenges = channel('token-merchant:payment-challenge')

export const METRIC_CHANNELS = { rpcCalls, registryRefreshes, attempts, settlements, feePayerSpends, challenges }

/** Each door, when it answers a call without payment with the terms (HTTP's 402, MCP's PaymentRequired result, A2A's payment-required task). */
export function publishChallenge (event: ChallengeEvent): void {
  if (challenges.hasSubscribers) challenges.publish(event)
}

export function publishRpcCall (event: RpcCallEvent): void {
  if (rpcCalls.hasSubscribers) rpcCalls.publish(event)
}

export function publishRegistryRefresh (event: RegistryRefreshEvent): void {
  if (registryRefreshes.hasSubscribers) registryRefreshes.publish(event)
}

/** The delivery core, once per payment that came (lib/delivery/paid-delivery.ts). */
export function publishAttempt (event: PaymentAttemptEvent): void {
  if (attempts.hasSubscribers) attempts.publish(event)
}

/** The delivery core, once per settle of a held payment, proof or x402 alike. */
export function publishSettlement (event: SettlementEvent): void {
  if (settlements.hasSubscribers) settlements.publish(event)
}

/** The x402 method, once the fee payer's part in a settlement is known: metrics count it, the balance watch reads the balance again. */
export function publishFeePayerSpend (event: FeePayerSpendEvent): void {
  if (feePayerSpends.hasSubscribers) feePayerSpends.publish(event)
}

/** The outcome label of a failed RPC call, from the error it threw. */
export function rpcFailureOutcome (error: unknown): RpcCallOutcome {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as { name?: unknown }).name
    if (name === 'TimeoutError' || name === 'AbortError') return 'timeout'
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && (code.startsWith('E') || code.startsWith('UND_ERR'))) return 'unreachable'
    if (e instanceof TypeError && e.message === 'fetch failed') return 'unreachable'
  }
  return 'http_error'
}
