import { NETWORKS, type NetworkName } from './networks.js'
import type { SolanaRpc } from './rpc-client.js'
import { rpcUnavailable } from './rpc-errors.js'

export type RpcState = 'unchecked' | 'up' | 'down'

/** What an RPC connection is for: judging payments (and the registry), or reading token data. */
export type RpcRole = 'payment' | 'data'

/** The variables that configure each role, named in messages that ask an operator to fix them. */
const ROLE_VARIABLES: Record<RpcRole, { network: string, url: string }> = {
  payment: { network: 'SOLANA_NETWORK', url: 'SOLANA_RPC_URL' },
  data: { network: 'DATA_NETWORK', url: 'DATA_RPC_URL' }
}

export class NetworkMismatchError extends Error {
  constructor (network: NetworkName, genesisHash: string, role: RpcRole = 'payment') {
    const { network: networkVariable, url } = ROLE_VARIABLES[role]
    super(`${url} serves a chain with genesis hash ${genesisHash}, which is not ${network} ` +
      `(expected ${NETWORKS[network].genesisHash}); fix ${networkVariable} or ${url}`)
    this.name = 'NetworkMismatchError'
  }
}

/**
 * Tracks whether the RPC answers and serves the configured cluster. The genesis hash is
 * compared once, the first time the node answers; after that a cheap getSlot tells up from down.
 */
export function createNetworkCheck (rpc: SolanaRpc, network: NetworkName, role: RpcRole = 'payment') {
  let state: RpcState = 'unchecked'
  let verifiedGenesis: string | undefined
  let lastCheckAt = 0

  async function check (): Promise<RpcState> {
    lastCheckAt = Date.now()
    try {
      if (verifiedGenesis === undefined) {
        const genesis = await rpc.getGenesisHash().send()
        const expected = NETWORKS[network].genesisHash
        if (expected !== undefined && genesis !== expected) throw new NetworkMismatchError(network, genesis, role)
        verifiedGenesis = genesis
      } else {
        await rpc.getSlot().send()
      }
      state = 'up'
    } catch (error) {
      if (error instanceof NetworkMismatchError) throw error
      state = 'down'
    }
    return state
  }

  return {
    check,
    /**
     * Resolves once the node was seen serving the configured cluster (checking now if it never
     * was); otherwise throws RPC_UNAVAILABLE, so nothing is judged against an unverified node. A
     * node of another cluster is reported through `onMismatch` and stays unavailable.
     */
    async ensureVerified (onMismatch: (error: NetworkMismatchError) => void): Promise<void> {
      if (verifiedGenesis !== undefined) return
      const now = await check().catch((error: NetworkMismatchError) => {
        onMismatch(error)
        return 'down' as const
      })
      if (now !== 'up') throw rpcUnavailable(new Error(`Solana ${role} RPC not verified`))
    },
    /** The current state, re-checked when older than `maxAgeMs`. */
    async current (maxAgeMs: number): Promise<RpcState> {
      return Date.now() - lastCheckAt > maxAgeMs ? await check() : state
    },
    get state () { return state },
    get genesisHash () { return verifiedGenesis }
  }
}
