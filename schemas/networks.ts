/** The Solana clusters the service knows, by the names its settings and documents use. */
export const NETWORK_NAMES = ['devnet', 'mainnet-beta', 'testnet', 'localnet'] as const

export type NetworkName = typeof NETWORK_NAMES[number]
