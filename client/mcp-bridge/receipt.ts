import { createSolanaRpc } from '@solana/kit'
import { formatTokenAmount } from '../../lib/payment/catalog.js'
import { NETWORKS } from '../../lib/solana/networks.js'

/** The public cluster a CAIP-2 Solana network names (`solana:<genesis hash prefix>`), if any. */
export function publicCluster (network: string): { name: 'devnet' | 'mainnet-beta' | 'testnet', rpcUrl: string } | undefined {
  const reference = network.startsWith('solana:') ? network.slice('solana:'.length) : undefined
  if (reference === undefined || reference === '') return undefined
  for (const name of ['devnet', 'mainnet-beta', 'testnet'] as const) {
    if (NETWORKS[name].genesisHash.startsWith(reference)) return { name, rpcUrl: NETWORKS[name].rpcUrl }
  }
  return undefined
}

/** The Solana Explorer page of a transaction on a public cluster; none for a local chain. */
export function explorerLink (transaction: string, network: string): string | undefined {
  const cluster = publicCluster(network)
  if (cluster === undefined) return undefined
  return `https://explorer.solana.com/tx/${transaction}${cluster.name === 'mainnet-beta' ? '' : `?cluster=${cluster.name}`}`
}

/** How an amount reads: 0.05 USDC (50000 base units), or base units only when the token is unknown. */
export function amountText (amount: bigint, token?: { symbol: string, decimals: number }): string {
  return token === undefined ? `${amount} base units` : `${formatTokenAmount(amount, token.decimals)} ${token.symbol} (${amount} base units)`
}

/**
 * Whether `rpcUrl` serves the public cluster `network` names (its genesis hash). A merchant on a local
 * chain advertises devnet's name (official clients know only the public clusters): its receipts
 * must not link to the devnet explorer, where the transaction does not exist.
 */
export async function rpcServesPublicCluster (rpcUrl: string, network: string): Promise<boolean> {
  const cluster = publicCluster(network)
  if (cluster === undefined) return false
  if (rpcUrl === cluster.rpcUrl) return true
  try {
    return await createSolanaRpc(rpcUrl).getGenesisHash().send({ abortSignal: AbortSignal.timeout(5000) }) === NETWORKS[cluster.name].genesisHash
  } catch {
    return false
  }
}

/** The short line a paid result ends with: what it cost, the transaction, where to see it (when `onPublicCluster`). */
export function receiptLine (payment: { amount: bigint, transaction: string, network: string, redelivered: boolean, onPublicCluster?: boolean }, token?: { symbol: string, decimals: number }): string {
  const link = payment.onPublicCluster === false ? undefined : explorerLink(payment.transaction, payment.network)
  const what = payment.redelivered ? `Re-delivered (paid earlier, nothing charged again): ${amountText(payment.amount, token)}` : `Paid ${amountText(payment.amount, token)}`
  return `${what}; transaction ${payment.transaction}${link === undefined ? '' : ` (${link})`}`
}
