import { isOffCurveAddress, type Address, type Base64EncodedBytes, type GetMultipleAccountsApi, type GetSignaturesForAddressApi, type GetTransactionApi, type Rpc } from '@solana/kit'
import type { EarlyBuyerBody, LaunchBody } from '../../../schemas/token-analysis-launch.js'
import type { AnalysisPart, PartInput, PartOutcome } from '../analysis-part.js'
import { isAtLeast, percentOf, shareOf } from '../holders.js'
import type { Finding } from '../risk-weights.js'
import { decodeLaunchTransaction, type LaunchTransaction, type RawTransaction } from './launch-transaction.js'
import { LAUNCH_THRESHOLDS } from './launch-rules.js'
import { mapLimited, type AddressHistory } from './mint-history.js'
import type { TransactionReader } from './transaction-reader.js'

export type LaunchRpc = Rpc<GetSignaturesForAddressApi & GetTransactionApi & GetMultipleAccountsApi>

/** The creation slot and this many after it make the launch window. */
export const LAUNCH_WINDOW_SLOTS = 20n
/** At most this many transactions of the window are read (the oldest ones). */
const MAX_WINDOW_TRANSACTIONS = 40
const MAX_EARLY_BUYERS = 50
const TRANSACTION_CONCURRENCY = 8
/** getMultipleAccounts takes at most 100 addresses. */
const ACCOUNTS_PER_CALL = 100
/** An SPL token account's amount: u64 little-endian at byte 64 (both token programs). */
const AMOUNT_OFFSET = 64

/** The launch as read once: what never changes (the current balances are read on each analysis). */
export interface LaunchFacts {
  creationSignature: string
  slot: bigint
  createdAt: number | null
  creator: Address
  initialMintAuthority: Address
  /** Per token account, first receipt first. */
  earlyBuyers: Array<{ owner: Address, tokenAccount: Address, received: bigint, slot: bigint, signature: string }>
  bundledInCreation: bigint
  bundledWallets: number
}

export interface LaunchPartOptions {
  rpc: LaunchRpc
  /** The mint's signature history, shared with the clusters part (createHistoryMemo). */
  history: (address: Address, signal: AbortSignal) => Promise<AddressHistory>
  /** Pages of 1,000 signatures read at most; the reason names the bound when the history is longer. */
  maxPages: number
  /** The window's transactions, shared with the creator and clusters parts (createTransactionReader). */
  transactions: TransactionReader
}

/** The launch cannot be read (history too long or pruned): a reason, not a failure. */
export class LaunchUnavailable extends Error {}

/** The launch's facts from the mint's history: its creation and the transactions of its window. */
export async function readLaunchFacts ({ history, maxPages, transactions: readTransaction }: LaunchPartOptions, mint: Address, signal: AbortSignal): Promise<LaunchFacts> {
  const { entries, complete } = await history(mint, signal)
  if (!complete) throw new LaunchUnavailable(`The launch is unavailable: the mint has more than ${maxPages * 1000} signatures, older than the history the analysis reads.`)
  const succeeded = entries.filter(entry => !entry.failed)
  const first = succeeded[0]
  if (first === undefined) throw new LaunchUnavailable('The launch is unavailable: the RPC node keeps no successful transaction of the mint.')
  const window = succeeded.filter(entry => entry.slot <= first.slot + LAUNCH_WINDOW_SLOTS).slice(0, MAX_WINDOW_TRANSACTIONS)
  const read = await mapLimited(window, TRANSACTION_CONCURRENCY, entry => readTransaction(entry.signature, signal))
  const transactions = read.filter((raw): raw is RawTransaction => raw !== null).map(raw => decodeLaunchTransaction(raw, mint))
  const creation = transactions.find(transaction => transaction.initialisedWith !== undefined && !transaction.failed)
  if (creation?.initialisedWith === undefined) throw new LaunchUnavailable('The launch is unavailable: the oldest transactions the RPC node keeps for the mint do not initialise it (its history was pruned).')
  const creator = creation.feePayer
  const initialMintAuthority = creation.initialisedWith.mintAuthority
  // Pools and bonding curves hold their tokens in accounts of program-derived owners: not buyers.
  const isBuyer = (owner: Address) => owner !== creator && owner !== initialMintAuthority && !isOffCurveAddress(owner)
  return {
    creationSignature: creation.signature,
    slot: creation.slot,
    createdAt: creation.blockTime,
    creator,
    initialMintAuthority,
    earlyBuyers: earlyBuyers(transactions, isBuyer),
    ...bundled(creation, isBuyer)
  }
}

function earlyBuyers (transactions: LaunchTransaction[], isBuyer: (owner: Address) => boolean): LaunchFacts['earlyBuyers'] {
  const byAccount = new Map<Address, LaunchFacts['earlyBuyers'][number]>()
  for (const transaction of transactions) {
    for (const receipt of transaction.receipts) {
      if (!isBuyer(receipt.owner)) continue
      const known = byAccount.get(receipt.tokenAccount)
      if (known !== undefined) known.received += receipt.received
      else byAccount.set(receipt.tokenAccount, { owner: receipt.owner, tokenAccount: receipt.tokenAccount, received: receipt.received, slot: transaction.slot, signature: transaction.signature })
    }
  }
  return [...byAccount.values()].slice(0, MAX_EARLY_BUYERS)
}

function bundled (creation: LaunchTransaction, isBuyer: (owner: Address) => boolean): Pick<LaunchFacts, 'bundledInCreation' | 'bundledWallets'> {
  const receipts = creation.receipts.filter(receipt => isBuyer(receipt.owner))
  return { bundledInCreation: receipts.reduce((sum, receipt) => sum + receipt.received, 0n), bundledWallets: new Set(receipts.map(receipt => receipt.owner)).size }
}

/** Current balances of token accounts, 100 per getMultipleAccounts; a closed account holds 0. */
export async function readBalances (rpc: LaunchRpc, accounts: Address[], signal: AbortSignal): Promise<Map<Address, bigint>> {
  const balances = new Map<Address, bigint>()
  for (let start = 0; start < accounts.length; start += ACCOUNTS_PER_CALL) {
    const chunk = accounts.slice(start, start + ACCOUNTS_PER_CALL)
    const { value } = await rpc.getMultipleAccounts(chunk, { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal: signal })
    chunk.forEach((account, index) => {
      const data = value[index]?.data[0]
      const bytes = data === undefined ? undefined : Buffer.from(data as Base64EncodedBytes, 'base64')
      balances.set(account, bytes === undefined || bytes.length < AMOUNT_OFFSET + 8 ? 0n : bytes.readBigUInt64LE(AMOUNT_OFFSET))
    })
  }
  return balances
}

/** The answer's `launch`, and its findings, from the facts and the balances now. */
export function launchOutcome (facts: LaunchFacts, balances: Map<Address, bigint>, supply: bigint): PartOutcome {
  const buyers: EarlyBuyerBody[] = facts.earlyBuyers.map(buyer => {
    const holds = balances.get(buyer.tokenAccount) ?? 0n
    return { owner: buyer.owner, token_account: buyer.tokenAccount, received: buyer.received.toString(), slot: Number(buyer.slot), signature: buyer.signature, holds_now: holds.toString(), share_now: shareOf(holds, supply) }
  })
  const held = facts.earlyBuyers.reduce((sum, buyer) => sum + (balances.get(buyer.tokenAccount) ?? 0n), 0n)
  const launch: LaunchBody = {
    available: true,
    creation_signature: facts.creationSignature,
    slot: Number(facts.slot),
    created_at: facts.createdAt,
    creator: facts.creator,
    ...(facts.initialMintAuthority === facts.creator ? {} : { initial_mint_authority: facts.initialMintAuthority }),
    early_buyers: buyers,
    early_buyers_share_now: shareOf(held, supply),
    bundled_in_creation: facts.bundledInCreation.toString()
  }
  const findings: Finding[] = []
  const holding = buyers.filter(buyer => buyer.holds_now !== '0')
  if (holding.length > 0 && isAtLeast(held, supply, LAUNCH_THRESHOLDS.earlyBuyersHoldBasisPoints)) {
    findings.push({ code: 'EARLY_BUYERS_HOLD', params: { count: holding.length, signature: facts.creationSignature, percent: percentOf(held, supply) } })
  }
  if (facts.bundledInCreation > 0n) {
    findings.push({ code: 'LAUNCH_BUNDLED', params: { signature: facts.creationSignature, percent: percentOf(facts.bundledInCreation, supply), count: facts.bundledWallets } })
  }
  return { fields: { launch }, findings, checks: [{ check: 'launch', source: 'chain', status: 'passed', slot: Number(facts.slot) }] }
}

function unavailableLaunch (reason: string): PartOutcome {
  return { fields: { launch: { available: false, reason } }, findings: [], checks: [{ check: 'launch', source: 'chain', status: 'unavailable', reason }] }
}

/** The `launch` part: the creation, the early buyers and what they hold now. */
export function createLaunchPart (options: LaunchPartOptions & { facts?: (mint: Address, signal: AbortSignal) => Promise<LaunchFacts> }): AnalysisPart {
  const facts = options.facts ?? ((mint, signal) => readLaunchFacts(options, mint, signal))
  return {
    name: 'launch',
    async read (input: PartInput) {
      let launch: LaunchFacts
      try {
        launch = await facts(input.mint, input.signal)
      } catch (error) {
        if (error instanceof LaunchUnavailable) return unavailableLaunch(error.message)
        throw error
      }
      const balances = await readBalances(options.rpc, launch.earlyBuyers.map(buyer => buyer.tokenAccount), input.signal)
      return launchOutcome(launch, balances, input.supply)
    },
    unavailable: reason => unavailableLaunch(reason)
  }
}
