import {
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_KEY_EXCLUDED_FROM_SECONDARY_INDEX,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  type Address,
  type GetTokenLargestAccountsApi,
  type GetTokenSupplyApi,
  type Rpc
} from '@solana/kit'
import type { HolderDistributionBody } from '../../schemas/token-analysis.js'
import { isRpcUnavailable } from '../solana/rpc-errors.js'

/** getTokenLargestAccounts never lists more than this many accounts. */
const LARGEST_ACCOUNTS_LIMIT = 20
const TOP_N = 10
const SHARE_DECIMALS = 6n

export interface HolderAccount {
  address: Address
  amount: bigint
}

/** Holder data as read, in exact base units; `complete` when every account with a balance is listed. */
export type HolderRead =
  | { available: true, slot: bigint, supply: bigint, accounts: HolderAccount[], complete: boolean }
  | { available: false, reason: string }

/** A plain-words reason for a refused or failed read, the same for the same failure. */
export function refusalReason (error: unknown): string {
  if (isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_KEY_EXCLUDED_FROM_SECONDARY_INDEX)) {
    return 'the RPC node does not index the token accounts of this program (JSON-RPC error -32010)'
  }
  if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    const status = error.context.statusCode
    return status === 429 ? 'the RPC node rate-limited the request (HTTP 429)' : `the RPC node answered HTTP ${status}`
  }
  if (isSolanaError(error)) return `the RPC node refused the request (JSON-RPC error ${error.context.__code})`
  if (isRpcUnavailable(error)) return 'the RPC node did not answer'
  return 'the RPC node failed to answer'
}

/**
 * The largest token accounts and the supply. Public RPC nodes often refuse getTokenLargestAccounts
 * (-32010, 429), so any failure here makes holder data unavailable instead of failing the analysis.
 */
export async function readHolders (rpc: Rpc<GetTokenLargestAccountsApi & GetTokenSupplyApi>, mint: Address): Promise<HolderRead> {
  const [largest, supply] = await Promise.allSettled([
    rpc.getTokenLargestAccounts(mint, { commitment: 'confirmed' }).send(),
    rpc.getTokenSupply(mint, { commitment: 'confirmed' }).send()
  ])
  if (largest.status === 'rejected') return { available: false, reason: `Holder data is unavailable: ${refusalReason(largest.reason)}.` }
  if (supply.status === 'rejected') return { available: false, reason: `Holder data is unavailable: getTokenSupply failed, ${refusalReason(supply.reason)}.` }
  const listed = largest.value.value.map(entry => ({ address: entry.address, amount: BigInt(entry.amount) }))
  const accounts = listed.filter(entry => entry.amount > 0n)
  return {
    available: true,
    slot: largest.value.context.slot,
    supply: BigInt(supply.value.value.amount),
    accounts,
    complete: listed.length < LARGEST_ACCOUNTS_LIMIT || accounts.length < listed.length
  }
}

/**
 * amount / supply as a number rounded half-up to 6 decimals, computed in integers. Capped at 1:
 * the balances and the supply come from two reads that may be a slot apart.
 */
export function shareOf (amount: bigint, supply: bigint): number {
  if (supply === 0n) return 0
  const scale = 10n ** SHARE_DECIMALS
  return Math.min(1, Number((2n * amount * scale + supply) / (2n * supply)) / Number(scale))
}

/** amount / supply as a percentage with two decimals, for sentences ("95.00%"); never "100.00%" for less than all of it. */
export function percentOf (amount: bigint, supply: bigint): string {
  if (supply === 0n) return '0.00%'
  const rounded = (2n * amount * 10_000n + supply) / (2n * supply)
  const hundredths = rounded >= 10_000n && amount < supply ? 9_999n : rounded
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}%`
}

/** True when amount is at least `basisPoints` / 10000 of the supply, exactly. */
export function isAtLeast (amount: bigint, supply: bigint, basisPoints: number): boolean {
  return supply > 0n && amount * 10_000n >= supply * BigInt(basisPoints)
}

export function largestAmount (read: Extract<HolderRead, { available: true }>): bigint {
  return read.accounts[0]?.amount ?? 0n
}

export function topAmount (read: Extract<HolderRead, { available: true }>, n = TOP_N): bigint {
  return read.accounts.slice(0, n).reduce((sum, entry) => sum + entry.amount, 0n)
}

export function holderDistribution (read: HolderRead): HolderDistributionBody {
  if (!read.available) {
    return { available: false, reason: read.reason, largest_share: null, top10_share: null, holder_count: null, accounts: [] }
  }
  return {
    available: true,
    slot: Number(read.slot),
    largest_share: shareOf(largestAmount(read), read.supply),
    top10_share: shareOf(topAmount(read), read.supply),
    holder_count: read.complete ? read.accounts.length : null,
    accounts: read.accounts.map(entry => ({ address: entry.address, amount: entry.amount.toString(), share: shareOf(entry.amount, read.supply) }))
  }
}
