import type { NetworkName } from '../solana/networks.js'
import { USDC_MAINNET_MINT } from '../../schemas/networks.js'

/**
 * Well-known mainnet tokens, answered without asking the aggregator. Every address here was
 * confirmed against Jupiter's validated token list (jup-ag/token-list validated-tokens.csv,
 * 2025-04-21), the list Jupiter's own token API was seeded from. Symbols keep that list's spelling,
 * without a leading `$`.
 */
export interface KnownToken {
  symbol: string
  mint: string
  decimals: number
}

export const KNOWN_TOKENS: readonly KnownToken[] = [
  { symbol: 'SOL', mint: 'So11111111111111111111111111111111111111112', decimals: 9 },
  { symbol: 'USDC', mint: USDC_MAINNET_MINT, decimals: 6 },
  { symbol: 'USDT', mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6 },
  { symbol: 'JUP', mint: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', decimals: 6 },
  { symbol: 'Bonk', mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', decimals: 5 },
  { symbol: 'WIF', mint: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm', decimals: 6 },
  { symbol: 'JTO', mint: 'jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL', decimals: 9 },
  { symbol: 'PYTH', mint: 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3', decimals: 6 },
  { symbol: 'RAY', mint: '4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R', decimals: 6 },
  { symbol: 'mSOL', mint: 'mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So', decimals: 9 },
  { symbol: 'JitoSOL', mint: 'J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn', decimals: 9 },
  { symbol: 'ORCA', mint: 'orcaEKTdK7LKz57vaAYr9QeNsVEPfiu6QeMU1kektZE', decimals: 6 },
  { symbol: 'bSOL', mint: 'bSo13r4TkiE4KumL71LsHTPpL2euBYLFx6h9HP3piy1', decimals: 9 },
  { symbol: 'stSOL', mint: '7dHbWXmci3dT8UFYWYZweBLXgycu7Y3iL6trKn1Y7ARj', decimals: 9 },
  { symbol: 'PYUSD', mint: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', decimals: 6 },
  { symbol: 'WBTC', mint: '3NZ9JMVBmGAqocybic2c7LQCJScmgsAZ6vQqTDzcqmJh', decimals: 8 },
  { symbol: 'ETH', mint: '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs', decimals: 8 },
  { symbol: 'POPCAT', mint: '7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr', decimals: 9 },
  { symbol: 'W', mint: '85VBFQZC9TZkfaptBWjvUw7YbZjy52A6mjtPGjstQAmQ', decimals: 6 },
  { symbol: 'RENDER', mint: 'rndrizKT3MK1iimdxRdWabcF7Zg7AR5T4nud4EkHBof', decimals: 8 },
  { symbol: 'HNT', mint: 'hntyVP6YFm1Hg25TN9WGLqM12b8TQmcknKrdu1oxWux', decimals: 8 },
  { symbol: 'MEW', mint: 'MEW1gQWJ3nEXg2qgERiKu7FAFj79PHvQVREQUzScPP5', decimals: 5 }
]

export const USDC_MINT = USDC_MAINNET_MINT

/** Folds a symbol for lookups: case-insensitive, a leading `$` ignored (`$WIF`, `wif` and `WIF` are one key). */
export function symbolKey (symbol: string): string {
  return symbol.replace(/^\$/, '').toUpperCase()
}

const bySymbolKey = new Map<string, KnownToken>(KNOWN_TOKENS.map(t => [symbolKey(t.symbol), t]))
// wSOL is the usual alias of SOL: prices are of the wrapped mint either way.
bySymbolKey.set('WSOL', bySymbolKey.get('SOL') as KnownToken)
const byMint = new Map<string, KnownToken>(KNOWN_TOKENS.map(t => [t.mint, t]))

export function knownTokenBySymbol (symbol: string): KnownToken | undefined {
  return bySymbolKey.get(symbolKey(symbol))
}

export function knownTokenByMint (mint: string): KnownToken | undefined {
  return byMint.get(mint)
}

/**
 * Whether fetch-price can name tokens of a data network. The price source (Jupiter) lists and
 * quotes mainnet tokens only, so mainnet-beta has a token list (the table above plus the
 * aggregator's search); so does a local chain, whose price stand-in answers as Jupiter does.
 * Devnet and testnet tokens have no market and no list: nothing there resolves, and a mainnet price
 * is never sold as theirs.
 */
export function hasTokenList (network: NetworkName): boolean {
  return network === 'mainnet-beta' || network === 'localnet'
}
