import { channel } from 'node:diagnostics_channel'

/**
 * What the core reports for metrics, as diagnostics channels: publishing costs a property read
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

export interface SettlementEvent {
  service: string
  flow: string
  /** 'settled', or why not ('failed', 'pending'). */
  outcome: string
  durationMs?: number
  /** x402: what the fee payer spent on this settlement, by how it ended; absent while unknown (pending). */
  feePayer?: { outcome: 'delivered' | 'failed_on_chain' | 'refused_at_send', lamports: bigint }
}

const rpcCalls = channel('token-merchant:rpc-call')
const registryRefreshes = channel('token-merchant:registry-refresh')
const settlements = channel('token-merchant:settlement')

export const METRIC_CHANNELS = { rpcCalls, registryRefreshes, settlements }

export function publishRpcCall (event: RpcCallEvent): void {
  if (rpcCalls.hasSubscribers) rpcCalls.publish(event)
}

export function publishRegistryRefresh (event: RegistryRefreshEvent): void {
  if (registryRefreshes.hasSubscribers) registryRefreshes.publish(event)
}

/** For a flow whose money moves on the merchant's side (x402 settle): one event per settle attempt. */
export function publishSettlement (event: SettlementEvent): void {
  if (settlements.hasSubscribers) settlements.publish(event)
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
