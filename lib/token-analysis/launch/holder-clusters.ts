import { isOffCurveAddress, type Address, type Base64EncodedBytes } from '@solana/kit'
import { getBase58Decoder } from '@solana/kit'
import type { HolderClusterBody } from '../../../schemas/token-analysis-launch.js'
import type { AnalysisPart, PartInput, PartOutcome } from '../analysis-part.js'
import { isAtLeast, percentOf, shareOf } from '../holders.js'
import type { Finding } from '../risk-weights.js'
import type { LaunchFactsRepository } from '../../../db/contracts/launch-facts.js'
import type { LaunchRpc } from './launch-part.js'
import { LAUNCH_THRESHOLDS } from './launch-rules.js'
import { mapLimited, SIGNATURES_PAGE } from './mint-history.js'
import type { TransactionReader } from './transaction-reader.js'

/** The largest accounts whose owners' funding is read: one signature page and one transaction each. */
const CLUSTER_ACCOUNTS = 10
const CONCURRENCY = 8
const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const base58Text = getBase58Decoder()

interface ParsedInstruction { programId?: string, parsed?: { type?: string, info?: Record<string, unknown> } }
interface FundingTransaction {
  transaction: { signatures: string[], message: { instructions: ParsedInstruction[] } }
  meta: { err: unknown, innerInstructions?: Array<{ instructions: ParsedInstruction[] }> | null } | null
}

/** The owner of each token account (bytes 32..64 of an SPL token account), one getMultipleAccounts. */
async function readOwners (rpc: LaunchRpc, accounts: Address[], signal: AbortSignal): Promise<Array<Address | null>> {
  if (accounts.length === 0) return []
  const { value } = await rpc.getMultipleAccounts(accounts, { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal: signal })
  return value.map(account => {
    const bytes = account === null ? undefined : Buffer.from(account.data[0] as Base64EncodedBytes, 'base64')
    return bytes === undefined || bytes.length < 64 ? null : base58Text.decode(bytes.subarray(32, 64)) as Address
  })
}

/**
 * Who first sent SOL to `wallet`: the source of the System transfer (or account creation) to it in
 * its oldest successful transaction. Unknown when its history is longer than one page (the oldest
 * is out of reach) or that transaction sent it no SOL.
 */
async function readFunder ({ rpc, transactions }: ClusterPartOptions, wallet: Address, signal: AbortSignal): Promise<{ funder: Address, signature: string } | undefined> {
  const page = await rpc.getSignaturesForAddress(wallet, { limit: SIGNATURES_PAGE, commitment: 'confirmed' }).send({ abortSignal: signal })
  if (page.length === SIGNATURES_PAGE) return undefined
  const oldest = [...page].reverse().find(entry => entry.err === null)
  if (oldest === undefined) return undefined
  const raw = await transactions(oldest.signature, signal) as unknown as FundingTransaction | null
  if (raw === null || raw.meta === null || raw.meta.err !== null) return undefined
  const instructions = [...raw.transaction.message.instructions, ...(raw.meta.innerInstructions ?? []).flatMap(group => group.instructions)]
  for (const { programId, parsed } of instructions) {
    if (programId !== SYSTEM_PROGRAM || parsed?.info === undefined) continue
    const { info } = parsed
    const to = parsed.type === 'createAccount' ? info.newAccount : info.destination
    if (to === wallet && typeof info.source === 'string' && info.source !== wallet) return { funder: info.source as Address, signature: raw.transaction.signatures[0] }
  }
  return undefined
}

export interface ClusterPartOptions {
  rpc: LaunchRpc
  /** Shared with the launch and creator parts (a funding transaction may be in the launch window). */
  transactions: TransactionReader
  /** The creator of the mint, when the launch part found it (funded_by_creator). */
  creator: (mint: Address, signal: AbortSignal) => Promise<Address | undefined>
  /** Where found funders are kept (a wallet's first funding never changes); absent: read each time. */
  store?: LaunchFactsRepository
  network: string
}

type Funding = { funder: Address, signature: string } | undefined

/** Each wallet's funder: the kept ones from the store, the others read and then kept. */
async function readFunders (options: ClusterPartOptions, wallets: Address[], signal: AbortSignal): Promise<Funding[]> {
  const { store, network } = options
  const kept = store === undefined ? new Map<string, { funder: string, signature: string }>() : await store.loadFunders(network, wallets).catch(() => new Map<string, { funder: string, signature: string }>())
  return await mapLimited(wallets, CONCURRENCY, async wallet => {
    const known = kept.get(wallet)
    if (known !== undefined) return { funder: known.funder as Address, signature: known.signature }
    const found = await readFunder(options, wallet, signal)
    if (found !== undefined) await store?.saveFunder(network, wallet, found.funder, found.signature).catch(() => {})
    return found
  })
}

function unavailableClusters (reason: string): PartOutcome {
  return { fields: {}, findings: [], checks: [{ check: 'holder_clusters', source: 'chain', status: 'unavailable', reason }] }
}

/** `holders.clusters`: owners of the largest accounts grouped by the wallet that first funded them. */
export function createHolderClustersPart (options: ClusterPartOptions): AnalysisPart {
  const { rpc, creator } = options
  return {
    name: 'holder_clusters',
    async read (input: PartInput): Promise<PartOutcome> {
      const holders = await input.holders
      if (!holders.available) return unavailableClusters(`Holder clusters are unavailable: ${holders.reason}`)
      const accounts = holders.accounts.slice(0, CLUSTER_ACCOUNTS)
      const owners = await readOwners(rpc, accounts.map(account => account.address), input.signal)
      const authorities = new Set([input.mintAuthority, input.freezeAuthority])
      // Wallets only: pools, curves and vaults have program-derived owners; the authorities are the token's own.
      const wallets = [...new Set(owners.filter((owner): owner is Address => owner !== null && !isOffCurveAddress(owner) && !authorities.has(owner)))]
      const [funders, creatorAddress] = await Promise.all([
        readFunders(options, wallets, input.signal),
        creator(input.mint, input.signal).catch(() => undefined)
      ])
      const byFunder = new Map<Address, Array<{ wallet: Address, signature: string }>>()
      wallets.forEach((wallet, index) => {
        const funding = funders[index]
        if (funding === undefined) return
        byFunder.set(funding.funder, [...(byFunder.get(funding.funder) ?? []), { wallet, signature: funding.signature }])
      })
      const clusters: HolderClusterBody[] = []
      const findings: Finding[] = []
      for (const [funder, members] of byFunder) {
        if (members.length < 2) continue
        const names = new Set(members.map(member => member.wallet))
        const held = accounts.reduce((sum, account, index) => sum + (names.has(owners[index] as Address) ? account.amount : 0n), 0n)
        const fundedByCreator = funder === creatorAddress
        clusters.push({ funder, members: [...names], share: shareOf(held, holders.supply), evidence: members.map(member => member.signature), funded_by_creator: fundedByCreator })
        if (isAtLeast(held, holders.supply, LAUNCH_THRESHOLDS.clusterBasisPoints)) {
          findings.push({ code: fundedByCreator ? 'HOLDER_CLUSTER_CREATOR' : 'HOLDER_CLUSTER', params: { count: members.length, funder, percent: percentOf(held, holders.supply), signature: members[0].signature } })
        }
      }
      clusters.sort((a, b) => b.share - a.share)
      return { fields: { holders: { clusters } } as PartOutcome['fields'], findings, checks: [{ check: 'holder_clusters', source: 'chain', status: 'passed', slot: Number(holders.slot) }] }
    },
    unavailable: reason => unavailableClusters(reason)
  }
}
