import type { TokenIssuerBody } from '../../schemas/token-analysis.js'
import type { NetworkName } from '../solana/networks.js'

/**
 * Centrally issued stablecoins, by mint address. Not a whitelist: their mint and freeze powers are
 * still reported (with the lower `issuerWeight` of the risk table), the issuer is named and the
 * trust assumption is spelled out. Only mints confirmed by the issuers' own published
 * addresses are listed (USDC also by Circle's developer documentation); USDG, USD1 and EURC are left out until confirmed,
 * since naming the wrong mint as a stablecoin would be worse than naming none.
 */
const MAINNET: Record<string, TokenIssuerBody> = {
  EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: {
    name: 'Circle',
    asset: 'USDC',
    trust_assumption: 'USDC keeps its dollar value only as long as Circle redeems it from its reserves, and its on-chain powers (listed in authorities and risks) are used under Circle\'s own policies, for example freezes to comply with sanctions.'
  },
  Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB: {
    name: 'Tether',
    asset: 'USDT',
    trust_assumption: 'USDT keeps its dollar value only as long as Tether redeems it from its reserves, and its on-chain powers (listed in authorities and risks) are used under Tether\'s own policies.'
  },
  '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo': {
    name: 'Paxos (for PayPal)',
    asset: 'PYUSD',
    trust_assumption: 'PYUSD keeps its dollar value only as long as Paxos redeems it from its reserves, and its on-chain powers (listed in authorities and risks) are used under Paxos\'s own regulated policies.'
  }
}

const DEVNET: Record<string, TokenIssuerBody> = {
  '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU': {
    name: 'Circle',
    asset: 'USDC (devnet)',
    trust_assumption: 'Devnet USDC is a test token without value; its on-chain powers (listed in authorities and risks) are Circle\'s.'
  }
}

/**
 * Issuers by the cluster the mint was read from: the same address means a different asset on
 * another cluster (devnet USDC is worth nothing). No testnet stablecoin mint is confirmed. A local
 * chain holds copies of public accounts at their addresses (local setups put the payment mint
 * where devnet USDC lives), so it knows both tables.
 */
const ISSUERS: Record<NetworkName, Record<string, TokenIssuerBody>> = {
  'mainnet-beta': MAINNET,
  devnet: DEVNET,
  testnet: {},
  localnet: { ...MAINNET, ...DEVNET }
}

export function knownIssuer (mint: string, network: NetworkName): TokenIssuerBody | undefined {
  return Object.hasOwn(ISSUERS[network], mint) ? ISSUERS[network][mint] : undefined
}
