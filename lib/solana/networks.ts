import { NETWORK_NAMES, type NetworkName } from '../../schemas/networks.js'

/** Facts about each supported Solana cluster, kept in one table. */
export const NETWORKS = {
  devnet: {
    rpcUrl: 'https://api.devnet.solana.com',
    genesisHash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    x402Network: 'solana-devnet',
    usdcMint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
  },
  'mainnet-beta': {
    rpcUrl: 'https://api.mainnet-beta.solana.com',
    genesisHash: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
    x402Network: 'solana',
    usdcMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
  },
  testnet: {
    rpcUrl: 'https://api.testnet.solana.com',
    genesisHash: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
    x402Network: 'solana-testnet',
    usdcMint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
  },
  // A local chain has its own genesis, so whatever it reports is accepted.
  localnet: {
    rpcUrl: undefined,
    genesisHash: undefined,
    x402Network: 'solana-localnet',
    usdcMint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
  }
} as const satisfies Record<NetworkName, { rpcUrl: string | undefined, genesisHash: string | undefined, x402Network: string, usdcMint: string }>

export { NETWORK_NAMES, type NetworkName }

/** The memo program every registration is sent with; readers accept all memo programs. */
export const MEMO_V2_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'
