import type { TokenIssuerBody } from '../../schemas/token-analysis.js'
import type { NetworkName } from '../solana/networks.js'
import { USDC_DEVNET_MINT, USDC_MAINNET_MINT } from '../../schemas/networks.js'

/**
 * Centrally issued stablecoins, by mint address: one table, each row with where its address is
 * published. Not a whitelist: every power is still reported. One rule for every row
 * (docs/token-analysis.md, "Issuers"): the issuer's powers weigh the risk table's `issuerWeight`
 * (times the holder kind's share), CENTRAL_ISSUER adds 10 and states the same trust assumption,
 * and holder and market findings weigh as for any token. A row is added only when the issuer or
 * its own repository publishes the address; naming the wrong mint as a stablecoin would be worse
 * than naming none.
 */
interface IssuerRow { name: string, asset: string, source: string }

const MAINNET: Record<string, IssuerRow> = {
  [USDC_MAINNET_MINT]: { name: 'Circle', asset: 'USDC', source: 'Circle, developers.circle.com/stablecoins/usdc-contract-addresses' },
  HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr: { name: 'Circle', asset: 'EURC', source: 'Circle, developers.circle.com/stablecoins/eurc-contract-addresses' },
  Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB: { name: 'Tether', asset: 'USDT', source: 'Tether, tether.to/en/supported-protocols' },
  HVbpJAQGNpkgBaYBZQBR1t7yFdvaYVp2vCQQfKKEN4tM: { name: 'Paxos', asset: 'USDP', source: 'Paxos, github.com/paxosglobal/usdp-contracts README ("Solana")' },
  '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo': { name: 'Paxos (for PayPal)', asset: 'PYUSD', source: 'Paxos and PayPal, docs.paxos.com/stablecoin (PYUSD on Solana)' },
  '2u1tszSeqZ3qBWF3uNGPFc8TzMk2tdiwknnRMWGWjGWH': { name: 'Paxos (Global Dollar Network)', asset: 'USDG', source: 'Paxos, docs.paxos.com/stablecoin (linked for deployed addresses by github.com/paxosglobal/usdg-contract)' }
}

const DEVNET: Record<string, IssuerRow> = {
  [USDC_DEVNET_MINT]: { name: 'Circle', asset: 'USDC (devnet)', source: 'Circle, developers.circle.com/stablecoins/usdc-contract-addresses (testnet table)' }
}

/** The one sentence every issuer gets: what a holder relies on it for. */
function trustAssumption ({ name, asset }: IssuerRow, network: NetworkName): string {
  if (network === 'devnet') return `${asset} is a test token without value; its on-chain powers (listed in authorities and risks) are ${name}'s.`
  return `${asset} keeps its value only as long as ${name} redeems it from its reserves, and its on-chain powers (listed in authorities and risks) are used under ${name}'s own policies.`
}

/**
 * Issuers by the cluster the mint was read from: the same address means a different asset on
 * another cluster (devnet USDC is worth nothing). No testnet stablecoin mint is confirmed. A local
 * chain holds copies of public accounts at their addresses (local setups put the payment mint
 * where devnet USDC lives), so it knows both tables.
 */
const ISSUERS: Record<NetworkName, Record<string, IssuerRow>> = {
  'mainnet-beta': MAINNET,
  devnet: DEVNET,
  testnet: {},
  localnet: { ...MAINNET, ...DEVNET }
}

export function knownIssuer (mint: string, network: NetworkName): TokenIssuerBody | undefined {
  if (!Object.hasOwn(ISSUERS[network], mint)) return undefined
  const row = ISSUERS[network][mint]
  const onDevnet = network === 'devnet' || (network === 'localnet' && Object.hasOwn(DEVNET, mint))
  return { name: row.name, asset: row.asset, trust_assumption: trustAssumption(row, onDevnet ? 'devnet' : network), source: row.source }
}

/** Every row, for the docs table and its test. */
export function issuerTable (): Array<IssuerRow & { mint: string, network: NetworkName }> {
  return [...Object.entries(MAINNET).map(([mint, row]) => ({ mint, network: 'mainnet-beta' as const, ...row })),
    ...Object.entries(DEVNET).map(([mint, row]) => ({ mint, network: 'devnet' as const, ...row }))]
}
