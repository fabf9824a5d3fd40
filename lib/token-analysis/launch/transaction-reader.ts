import type { GetTransactionApi, Rpc, Signature } from '@solana/kit'
import type { RawTransaction } from './launch-transaction.js'

/** Transactions kept at most: a few analyses' windows, creators and funders (jsonParsed, a few KB each). */
export const KEPT_TRANSACTIONS = 256

export type TransactionReader = (signature: Signature, signal: AbortSignal) => Promise<RawTransaction | null>

/**
 * getTransaction (jsonParsed, confirmed) for the launch, creator and clusters parts, each signature
 * read once while it is kept: a confirmed transaction never changes, and the parts read the same
 * ones (a new token's creator's newest transactions are its launch window; the next analysis of the
 * token reads the creator's again). The newest `maxKept` are kept, least recently used dropped
 * first; a transaction the node does not have (null) or a failed read is not kept. Calls for a
 * signature in flight share its read, as createHistoryMemo's do, and so the first caller's budget:
 * a read cut by it fails the others too (their part is then unavailable, never wrong).
 */
export function createTransactionReader (rpc: Rpc<GetTransactionApi>, maxKept = KEPT_TRANSACTIONS): TransactionReader {
  const kept = new Map<Signature, Promise<RawTransaction | null>>()
  return (signature, signal) => {
    const known = kept.get(signature)
    if (known !== undefined) {
      kept.delete(signature)
      kept.set(signature, known)
      return known
    }
    const read = rpc.getTransaction(signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
      .send({ abortSignal: signal }) as unknown as Promise<RawTransaction | null>
    kept.set(signature, read)
    const forget = () => { if (kept.get(signature) === read) kept.delete(signature) }
    read.then(transaction => { if (transaction === null) forget() }, forget)
    for (const oldest of kept.keys()) {
      if (kept.size <= maxKept) break
      kept.delete(oldest)
    }
    return read
  }
}
