// What every method handler gets, and the {context, value} envelope of "RpcResponse" results.
import type { Chain } from '../chain.js'
import type { Faucet } from '../faucet.js'

/** Reported by getVersion and in every response context (an agave 3.0-era node). */
export const SOLANA_CORE_VERSION = '3.0.0'
export const FEATURE_SET = 3294202862

export interface MethodContext {
  chain: Chain;
  faucet: Faucet;
}

export type MethodHandler = (params: unknown[], ctx: MethodContext) => unknown | Promise<unknown>

export function withContext<T> (chain: Chain, value: T): { context: { apiVersion: string; slot: number }; value: T } {
  return { context: { apiVersion: SOLANA_CORE_VERSION, slot: chain.slot }, value }
}
