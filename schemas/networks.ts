/** The Solana clusters the service knows, by the names its settings and documents use. */
export const NETWORK_NAMES = ['devnet', 'mainnet-beta', 'testnet', 'localnet'] as const

export type NetworkName = typeof NETWORK_NAMES[number]

/** Circle's USDC mint on mainnet, and the one devnet, testnet and a local chain use (Circle's devnet faucet mint). */
export const USDC_MAINNET_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
export const USDC_DEVNET_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
