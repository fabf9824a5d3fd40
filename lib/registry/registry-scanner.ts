import {
  getBase58Encoder,
  type Address,
  type GetSignaturesForAddressApi,
  type Rpc,
  type Signature
} from '@solana/kit'
import { getMemosFromInstructions } from '@solana-program/memo'
import type { RpcBatchClient } from '../solana/rpc-batch.js'
import { registrationFromMemos } from './registration-memo.js'
import type { FoundRegistration, RegistryKey, RegistryRepository } from '../../db/contracts/registry-repository.js'

/** The most getSignaturesForAddress returns at once. */
const SIGNATURE_PAGE_LIMIT = 1000
const COMMITMENT = 'confirmed'
const TRANSACTION_CONFIG = { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: COMMITMENT }

export type RegistryRpc = Rpc<GetSignaturesForAddressApi>
type ListedTransaction = Awaited<ReturnType<ReturnType<RegistryRpc['getSignaturesForAddress']>['send']>>[number]

/** The parts of a json-encoded getTransaction result the registry reads; slots and block times fit a double. */
interface JsonTransaction {
  slot: number
  blockTime: number | null
  meta: { err: unknown } | null
  transaction: { message: { accountKeys: string[], instructions: Array<{ programIdIndex: number, data: string }> } }
}

/** The node listed a transaction it then could not return, or answered a listing of the wrong shape: the read must be retried, not skipped. */
export class IncompleteChainReadError extends Error {
  constructor (readonly signature: string, message = `transaction ${signature} is listed for the registry address but the node did not return it`) {
    super(message)
    this.name = 'IncompleteChainReadError'
  }
}

/** A signature listing as the node should send it: an array of entries with a string signature. */
function isSignaturePage (page: unknown): page is ListedTransaction[] {
  return Array.isArray(page) && page.length <= SIGNATURE_PAGE_LIMIT &&
    page.every(entry => typeof entry === 'object' && entry !== null && typeof (entry as { signature?: unknown }).signature === 'string')
}

export interface ScanReport {
  /** getSignaturesForAddress calls */
  pages: number
  /** signatures listed */
  listed: number
  /** getTransaction HTTP requests (JSON-RPC batches) sent */
  requests: number
  /** transactions fetched with getTransaction: successful ones whose listing shows a memo */
  fetched: number
  /** valid registrations stored */
  registrations: number
}

/**
 * Runs `task` over `items` with at most `limit` in flight. After a failure no new task starts;
 * once the running ones have settled, it returns each item's value (undefined where none came)
 * and the first failure, so nothing outlives the call and finished work is not thrown away.
 */
async function mapSettled<T, R> (items: readonly T[], limit: number, task: (item: T) => Promise<R>) {
  const done: Array<{ value: R } | undefined> = new Array(items.length)
  let next = 0
  let failure: { error: unknown } | undefined
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++
      try {
        done[index] = { value: await task(items[index]) }
      } catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return { done, failure }
}

/** Memo texts of the top-level instructions, in order, whichever memo program wrote them. */
function topLevelMemos (transaction: JsonTransaction): string[] {
  const { accountKeys, instructions } = transaction.transaction.message
  const base58 = getBase58Encoder()
  return getMemosFromInstructions(instructions.map(instruction => ({
    programAddress: accountKeys[instruction.programIdIndex] as Address,
    data: base58.encode(instruction.data)
  }))).map(memo => memo.memo)
}

const isCandidate = (listed: ListedTransaction) => listed.err === null && listed.memo !== null

/** The registration a fetched transaction makes, or null when it makes none. */
function registrationIn (listed: ListedTransaction, transaction: JsonTransaction | null): Omit<FoundRegistration, 'run' | 'position'> | null {
  if (transaction === null) throw new IncompleteChainReadError(listed.signature)
  if (transaction.meta === null || transaction.meta.err !== null) return null
  const registration = registrationFromMemos(topLevelMemos(transaction))
  if (registration === null) return null
  const blockTime = transaction.blockTime ?? listed.blockTime
  return {
    ...registration,
    signature: listed.signature,
    wallet: transaction.transaction.message.accountKeys[0],
    blockTime: blockTime === null ? null : Number(blockTime),
    slot: transaction.slot
  }
}

type CandidateOutcome = { registration: ReturnType<typeof registrationIn> } | { error: unknown } | undefined

export interface RegistryScannerOptions {
  /** Lists the registry address's signatures. */
  rpc: RegistryRpc
  /** Fetches the candidate transactions, in JSON-RPC batches. */
  transactions: RpcBatchClient
  repository: RegistryRepository
  key: RegistryKey
  /** getTransaction calls per HTTP request: 1 sends single requests. */
  callsPerRequest: number
  /** getTransaction HTTP requests in flight at once. */
  requestsInFlight: number
  /** getSignaturesForAddress pages one read may walk; the next read resumes where it stopped. */
  maxPages: number
}

/**
 * Reads the registry address's history into the repository. The first read walks the whole
 * history backwards (`before`); later reads stop at the newest signature already read (`until`).
 * Only successful transactions with a memo are fetched, in JSON-RPC batches. The listed signatures
 * are handled in chunks of as many candidates as one round of requests fetches; each chunk is
 * stored together with the cursor, so an interrupted read resumes where it stopped, never skipping
 * or repeating a transaction, and a crash redoes at most one round.
 */
export function createRegistryScanner ({ rpc, transactions, repository, key, callsPerRequest, requestsInFlight, maxPages }: RegistryScannerOptions) {
  const registryAddress = key.registryAddress as Address
  const candidatesPerChunk = callsPerRequest * requestsInFlight

  /** Where the chunk starting at `start` ends: after its last candidate, or at the end of the page. */
  function chunkEnd (page: readonly ListedTransaction[], start: number): number {
    let candidates = 0
    for (let index = start; index < page.length; index++) {
      if (isCandidate(page[index]) && ++candidates === candidatesPerChunk) return index + 1
    }
    return page.length
  }

  /**
   * Fetches the candidates of a chunk. Returns the registrations within the longest prefix of the
   * chunk that was read completely (by index in the chunk), the length of that prefix, and the
   * failure that cut it short: whatever was read before a failure is kept.
   */
  async function readChunk (chunk: readonly ListedTransaction[], abortSignal?: AbortSignal) {
    const candidates = chunk.flatMap((listed, index) => isCandidate(listed) ? [index] : [])
    const requests = Array.from({ length: Math.ceil(candidates.length / callsPerRequest) },
      (_, r) => candidates.slice(r * callsPerRequest, (r + 1) * callsPerRequest))
    let sent = 0
    const { done, failure } = await mapSettled(requests, requestsInFlight, async indexes => {
      sent++
      return await transactions.call<JsonTransaction | null>('getTransaction',
        indexes.map(index => [chunk[index].signature, TRANSACTION_CONFIG]), abortSignal)
    })
    // Per candidate: what its transaction registers (or null), its error, or undefined when its request failed or never ran.
    const outcomes: CandidateOutcome[] = requests.flatMap((indexes, r) => indexes.map((index, k): CandidateOutcome => {
      const settled = done[r]?.value[k]
      if (settled === undefined) return undefined
      if (settled.status === 'rejected') return { error: settled.reason }
      try {
        return { registration: registrationIn(chunk[index], settled.value) }
      } catch (error) {
        return { error }
      }
    }))
    const firstUnread = outcomes.findIndex(outcome => outcome === undefined || 'error' in outcome)
    const readLength = firstUnread === -1 ? chunk.length : candidates[firstUnread]
    const found = candidates.flatMap((index, k) => {
      const outcome = outcomes[k]
      return index < readLength && outcome !== undefined && 'registration' in outcome && outcome.registration !== null
        ? [{ index, registration: outcome.registration }]
        : []
    })
    // What cut the prefix short: the first unread candidate's own error, else a request's failure
    // (there is one whenever a candidate has no outcome).
    const unread = firstUnread === -1 ? undefined : outcomes[firstUnread]
    return {
      found,
      readLength,
      requests: sent,
      fetched: outcomes.filter(outcome => outcome !== undefined && 'registration' in outcome).length,
      failure: unread !== undefined && 'error' in unread ? { error: unread.error } : failure
    }
  }

  return {
    /** One read of everything new; `fetchedAt` is recorded when it completes. */
    async scan (fetchedAt: string, abortSignal?: AbortSignal): Promise<ScanReport> {
      const state = await repository.scanState(key)
      const until = (state.newestSignature ?? undefined) as Signature | undefined
      const run = state.resume === null ? state.run + 1 : state.run
      let top = state.resume?.top ?? null
      let before = state.resume?.before as Signature | undefined
      let position = state.resume?.position ?? 0
      const report: ScanReport = { pages: 0, listed: 0, requests: 0, fetched: 0, registrations: 0 }

      while (report.pages < maxPages) {
        const page: unknown = await rpc.getSignaturesForAddress(registryAddress, { limit: SIGNATURE_PAGE_LIMIT, before, until, commitment: COMMITMENT })
          .send({ abortSignal })
        if (!isSignaturePage(page)) throw new IncompleteChainReadError(String(before ?? 'the newest'), 'getSignaturesForAddress answered something other than a list of signatures')
        report.pages++
        report.listed += page.length
        top ??= page[0]?.signature ?? null
        const lastPage = page.length < SIGNATURE_PAGE_LIMIT
        if (page.length === 0) {
          await repository.saveProgress(key, [], { kind: 'complete', run, newestSignature: top ?? state.newestSignature, fetchedAt })
          return report
        }
        for (let start = 0, end = 0; start < page.length; start = end) {
          end = chunkEnd(page, start)
          const chunk = page.slice(start, end)
          const { found, readLength, requests, fetched, failure } = await readChunk(chunk, abortSignal)
          report.requests += requests
          report.fetched += fetched
          report.registrations += found.length
          if (readLength > 0) {
            const done = failure === undefined && lastPage && end === page.length
            before = chunk[readLength - 1].signature
            await repository.saveProgress(key, found.map(({ index, registration }) => ({ ...registration, run, position: position + index })), done
              ? { kind: 'complete', run, newestSignature: top, fetchedAt }
              : { kind: 'partial', run, resume: { top: top as string, before, position: position + readLength } })
            position += readLength
          }
          if (failure !== undefined) throw failure.error
        }
        if (lastPage) return report
      }
      return report // the page budget is spent: the saved cursor resumes the read next time
    }
  }
}

export type RegistryScanner = ReturnType<typeof createRegistryScanner>
