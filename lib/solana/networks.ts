import { NETWORK_NAMES, USDC_DEVNET_MINT, USDC_MAINNET_MINT, type NetworkName } from '../../schemas/networks.js'

/** Facts about each supported Solana cluster, kept in one table. */
export const NETWORKS = {
  devnet: {
    rpcUrl: 'https://api.devnet.solana.com',
    genesisHash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    x402Network: 'solana-devnet',
    usdcMint: USDC_DEVNET_MINT
  },
  'mainnet-beta': {
    rpcUrl: 'https://api.mainnet-beta.solana.com',
    genesisHash: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
    x402Network: 'solana',
    usdcMint: USDC_MAINNET_MINT
  },
  testnet: {
    rpcUrl: 'https://api.testnet.solana.com',
    genesisHash: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
    x402Network: 'solana-testnet',
    usdcMint: USDC_DEVNET_MINT
  },
  // A local chain has its own genesis, so whatever it reports is accepted.
  localnet: {
    rpcUrl: undefined,
    genesisHash: undefined,
    x402Network: 'solana-localnet',
    usdcMint: USDC_DEVNET_MINT
  }
} as const satisfies Record<NetworkName, { rpcUrl: string | undefined, genesisHash: string | undefined, x402Network: string, usdcMint: string }>

export { NETWORK_NAMES, type NetworkName }

/** The memo program every registration is sent with; readers accept all memo programs. */
export const MEMO_V2_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'
