import type { Address } from '@solana/kit'
import type { CreatorBody } from '../../../schemas/token-analysis-launch.js'
import type { AnalysisPart, PartInput, PartOutcome } from '../analysis-part.js'
import type { Finding } from '../risk-weights.js'
import { LaunchUnavailable, type LaunchRpc } from './launch-part.js'
import { LAUNCH_THRESHOLDS } from './launch-rules.js'
import { initialisedMints } from './launch-transaction.js'
import { mapLimited, readAddressHistory } from './mint-history.js'
import type { TransactionReader } from './transaction-reader.js'

/** The creator's newest transactions read at most (one page of signatures, these many getTransaction). */
const CREATOR_TRANSACTIONS = 20
const MAX_OTHERS = 20
const CONCURRENCY = 8

export interface CreatorPartOptions {
  rpc: LaunchRpc
  /** Shared with the launch part, whose window a new token's creator's newest transactions often are. */
  transactions: TransactionReader
  /** The creator and the creation of this mint, as the launch part found them. */
  launch: (mint: Address, signal: AbortSignal) => Promise<{ creator: Address, creationSignature: string }>
}

function unavailableCreator (reason: string): PartOutcome {
  return { fields: { creator: { available: false, reason } }, findings: [], checks: [{ check: 'creator', source: 'chain', status: 'unavailable', reason }] }
}

/**
 * `creator`: the other mints whose creation the creator paid for, found in its own newest
 * transactions (one page of signatures, the newest 20 read): `complete` when those are all it has.
 */
export function createCreatorPart ({ rpc, transactions, launch }: CreatorPartOptions): AnalysisPart {
  return {
    name: 'creator',
    async read (input: PartInput): Promise<PartOutcome> {
      let creation: { creator: Address, creationSignature: string }
      try {
        creation = await launch(input.mint, input.signal)
      } catch (error) {
        if (error instanceof LaunchUnavailable) return unavailableCreator(`The creator is unknown: ${error.message}`)
        throw error
      }
      const { creator } = creation
      const history = await readAddressHistory(rpc, creator, 1, input.signal)
      const newest = history.entries.filter(entry => !entry.failed).reverse().slice(0, CREATOR_TRANSACTIONS)
      const read = await mapLimited(newest, CONCURRENCY, entry => transactions(entry.signature, input.signal))
      const others: CreatorBody['others'] = []
      let count = 0
      read.forEach((raw, index) => {
        if (raw === null) return
        const { feePayer, mints } = initialisedMints(raw)
        if (feePayer !== creator) return
        for (const mint of mints) {
          if (mint === input.mint) continue
          count++
          if (others.length < MAX_OTHERS) others.push({ mint, signature: newest[index].signature })
        }
      })
      const body: CreatorBody = {
        available: true,
        address: creator,
        mints_created: count,
        scanned_signatures: read.length,
        complete: history.complete && newest.length === history.entries.filter(entry => !entry.failed).length,
        others
      }
      const findings: Finding[] = count >= LAUNCH_THRESHOLDS.serialCreatorMints
        ? [{ code: 'SERIAL_CREATOR', params: { creator, count, scanned: read.length, signature: others[0].signature } }]
        : []
      return { fields: { creator: body }, findings, checks: [{ check: 'creator', source: 'chain', status: 'passed' }] }
    },
    unavailable: reason => unavailableCreator(reason)
  }
}
