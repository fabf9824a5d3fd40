import {
  getBase58Encoder,
  type Address,
  type GetSignaturesForAddressApi,
  type GetTransactionApi,
  type Rpc,
  type Signature
} from '@solana/kit'
import { getMemosFromInstructions } from '@solana-program/memo'
import { registrationFromMemos } from './registration-memo.js'
import type { FoundRegistration, RegistryKey, RegistryRepository } from './registry-repository.js'

/** The most getSignaturesForAddress returns at once. */
const SIGNATURE_PAGE_LIMIT = 1000
const COMMITMENT = 'confirmed'

export type RegistryRpc = Rpc<GetSignaturesForAddressApi & GetTransactionApi>
type ListedTransaction = Awaited<ReturnType<ReturnType<RegistryRpc['getSignaturesForAddress']>['send']>>[number]

/** The node listed a transaction it then could not return: the read must be retried, not skipped. */
export class IncompleteChainReadError extends Error {
  constructor (readonly signature: string) {
    super(`transaction ${signature} is listed for the registry address but the node did not return it`)
    this.name = 'IncompleteChainReadError'
  }
}

export interface ScanReport {
  /** getSignaturesForAddress calls */
  pages: number
  /** signatures listed */
  listed: number
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

type JsonTransaction = NonNullable<Awaited<ReturnType<ReturnType<RegistryRpc['getTransaction']>['send']>>>

/** Memo texts of the top-level instructions, in order, whichever memo program wrote them. */
function topLevelMemos (transaction: JsonTransaction): string[] {
  const { accountKeys, instructions } = transaction.transaction.message
  const base58 = getBase58Encoder()
  return getMemosFromInstructions(instructions.map(instruction => ({
    programAddress: accountKeys[instruction.programIdIndex],
    data: base58.encode(instruction.data)
  }))).map(memo => memo.memo)
}

export interface RegistryScannerOptions {
  rpc: RegistryRpc
  repository: RegistryRepository
  key: RegistryKey
  /** getTransaction calls in flight at once. */
  concurrency: number
  /** Listed signatures handled per stored batch: the most a crash or an RPC failure can make us redo. */
  batchSize: number
}

/**
 * Reads the registry address's history into the repository. The first read walks the whole
 * history backwards (`before`); later reads stop at the newest signature already read (`until`).
 * Only successful transactions with a memo are fetched. Each batch of listed signatures is stored
 * together with the cursor, so an interrupted read resumes where it stopped, never skipping or
 * repeating a transaction.
 */
export function createRegistryScanner ({ rpc, repository, key, concurrency, batchSize }: RegistryScannerOptions) {
  const registryAddress = key.registryAddress as Address

  async function readRegistration (listed: ListedTransaction, abortSignal?: AbortSignal): Promise<Omit<FoundRegistration, 'run' | 'position'> | null> {
    const transaction = await rpc.getTransaction(listed.signature, {
      encoding: 'json',
      maxSupportedTransactionVersion: 0,
      commitment: COMMITMENT
    }).send({ abortSignal })
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
      slot: Number(transaction.slot)
    }
  }

  const isCandidate = (listed: ListedTransaction) => listed.err === null && listed.memo !== null

  /**
   * Fetches the candidates of a batch. Returns the registrations within the longest prefix of the
   * batch that was read completely (by index in the batch), the length of that prefix, and the
   * failure that cut it short: whatever was read before a failure is kept.
   */
  async function readBatch (batch: readonly ListedTransaction[], abortSignal?: AbortSignal) {
    const candidates = batch.flatMap((listed, index) => isCandidate(listed) ? [index] : [])
    const { done, failure } = await mapSettled(candidates, concurrency, async index => await readRegistration(batch[index], abortSignal))
    const readLength = candidates.find((_, k) => done[k] === undefined) ?? batch.length
    const found = candidates.flatMap((index, k) => {
      const registration = done[k]?.value
      return index < readLength && registration != null ? [{ index, registration }] : []
    })
    return { found, readLength, fetched: done.filter(Boolean).length, failure }
  }

  return {
    /** One read of everything new; `fetchedAt` is recorded when it completes. */
    async scan (fetchedAt: string, abortSignal?: AbortSignal): Promise<ScanReport> {
      const state = repository.scanState(key)
      const until = (state.newestSignature ?? undefined) as Signature | undefined
      const run = state.resume === null ? state.run + 1 : state.run
      let top = state.resume?.top ?? null
      let before = state.resume?.before as Signature | undefined
      let position = state.resume?.position ?? 0
      const report: ScanReport = { pages: 0, listed: 0, fetched: 0, registrations: 0 }

      for (;;) {
        const page = await rpc.getSignaturesForAddress(registryAddress, { limit: SIGNATURE_PAGE_LIMIT, before, until, commitment: COMMITMENT })
          .send({ abortSignal })
        report.pages++
        report.listed += page.length
        top ??= page[0]?.signature ?? null
        const lastPage = page.length < SIGNATURE_PAGE_LIMIT
        if (page.length === 0) {
          repository.saveProgress(key, [], { kind: 'complete', run, newestSignature: top ?? state.newestSignature, fetchedAt })
          return report
        }
        for (let start = 0; start < page.length; start += batchSize) {
          const batch = page.slice(start, start + batchSize)
          const { found, readLength, fetched, failure } = await readBatch(batch, abortSignal)
          report.fetched += fetched
          report.registrations += found.length
          if (readLength > 0) {
            const done = failure === undefined && lastPage && start + batchSize >= page.length
            before = batch[readLength - 1].signature
            repository.saveProgress(key, found.map(({ index, registration }) => ({ ...registration, run, position: position + index })), done
              ? { kind: 'complete', run, newestSignature: top, fetchedAt }
              : { kind: 'partial', run, resume: { top: top as string, before, position: position + readLength } })
            position += readLength
          }
          if (failure !== undefined) throw failure.error
        }
        if (lastPage) return report
      }
    }
  }
}

export type RegistryScanner = ReturnType<typeof createRegistryScanner>
