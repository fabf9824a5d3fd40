import type { NetworkName } from './networks.js'
import { createNetworkCheck, type RpcRole } from './network-check.js'
import { createRpcClient } from './rpc-client.js'

export interface RpcConnectionOptions {
  role: RpcRole
  network: NetworkName
  url: string
  timeoutMs: number
}

/**
 * One RPC endpoint in one role: the client (with the role's timeout and the usual error shapes)
 * and the health check that holds it to its cluster. Both roles are built here, so the payment
 * RPC and the data RPC behave alike.
 */
export function createRpcConnection ({ role, network, url, timeoutMs }: RpcConnectionOptions) {
  const rpc = createRpcClient(url, timeoutMs, role)
  return { role, network, url, timeoutMs, rpc, health: createNetworkCheck(rpc, network, role) }
}

export type RpcConnection = ReturnType<typeof createRpcConnection>

/** True when a second role may reuse `connection` instead of opening its own. */
export function servesAs (connection: RpcConnection, options: Omit<RpcConnectionOptions, 'role'>): boolean {
  return connection.network === options.network && connection.url === options.url && connection.timeoutMs === options.timeoutMs
}
