import type { NetworkName } from '../solana/networks.js'

/**
 * The networks x402 clients know, by their v1 name, with the CAIP-2 id v2 uses for the same
 * cluster. Official clients know only the three public clusters; the local chain gets a name of
 * its own that no unmodified client accepts (operators of a local chain advertise solana-devnet).
 */
export const X402_NETWORKS = {
  solana: { caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' },
  'solana-devnet': { caip2: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' },
  'solana-testnet': { caip2: 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z' },
  'solana-localnet': { caip2: 'solana:localnet' }
} as const

export type X402NetworkName = keyof typeof X402_NETWORKS
export const X402_NETWORK_NAMES = Object.keys(X402_NETWORKS) as X402NetworkName[]

const BY_CLUSTER: Record<NetworkName, X402NetworkName> = {
  'mainnet-beta': 'solana',
  devnet: 'solana-devnet',
  testnet: 'solana-testnet',
  localnet: 'solana-localnet'
}

/** The x402 network a merchant on `cluster` advertises unless X402_NETWORK says otherwise. */
export function defaultX402Network (cluster: NetworkName): X402NetworkName {
  return BY_CLUSTER[cluster]
}

/** Both spellings of one advertised network. */
export interface X402Network {
  /** v1 name, e.g. solana-devnet */
  v1: X402NetworkName
  /** CAIP-2 id, e.g. solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1 */
  v2: string
}

export function x402Network (name: X402NetworkName): X402Network {
  return { v1: name, v2: X402_NETWORKS[name].caip2 }
}
