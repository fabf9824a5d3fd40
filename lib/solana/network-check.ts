import { NETWORKS, type NetworkName } from './networks.js'
import type { SolanaRpc } from './rpc-client.js'

export type RpcState = 'unchecked' | 'up' | 'down'

export class NetworkMismatchError extends Error {
  constructor (network: NetworkName, genesisHash: string) {
    super(`SOLANA_RPC_URL serves a chain with genesis hash ${genesisHash}, which is not ${network} ` +
      `(expected ${NETWORKS[network].genesisHash}); fix SOLANA_NETWORK or SOLANA_RPC_URL`)
    this.name = 'NetworkMismatchError'
  }
}

/**
 * Tracks whether the RPC answers and serves the configured cluster. The genesis hash is
 * compared once, the first time the node answers; after that a cheap getSlot tells up from down.
 */
export function createNetworkCheck (rpc: SolanaRpc, network: NetworkName) {
  let state: RpcState = 'unchecked'
  let verifiedGenesis: string | undefined
  let lastCheckAt = 0

  async function check (): Promise<RpcState> {
    lastCheckAt = Date.now()
    try {
      if (verifiedGenesis === undefined) {
        const genesis = await rpc.getGenesisHash().send()
        const expected = NETWORKS[network].genesisHash
        if (expected !== undefined && genesis !== expected) throw new NetworkMismatchError(network, genesis)
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
    /** The current state, re-checked when older than `maxAgeMs`. */
    async current (maxAgeMs: number): Promise<RpcState> {
      return Date.now() - lastCheckAt > maxAgeMs ? await check() : state
    },
    get state () { return state },
    get genesisHash () { return verifiedGenesis }
  }
}
