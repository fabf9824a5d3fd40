import type { Address, GetSignaturesForAddressApi, Rpc, Signature } from '@solana/kit'

/** getSignaturesForAddress never returns more than this many per call. */
export const SIGNATURES_PAGE = 1000

export interface SignatureEntry {
  signature: Signature
  slot: bigint
  blockTime: number | null
  failed: boolean
}

/** An address's signatures, oldest first; `complete` when the walk reached its oldest one. */
export interface AddressHistory {
  entries: SignatureEntry[]
  complete: boolean
}

/**
 * Walks an address's signatures newest to oldest, pages of 1,000, at most `maxPages` pages; a page
 * shorter than 1,000 is the last one. Stops at `signal` (the paid call's budget).
 */
export async function readAddressHistory (rpc: Rpc<GetSignaturesForAddressApi>, address: Address, maxPages: number, signal: AbortSignal): Promise<AddressHistory> {
  const entries: SignatureEntry[] = []
  let before: Signature | undefined
  for (let page = 0; page < maxPages; page++) {
    const list = await rpc.getSignaturesForAddress(address, { limit: SIGNATURES_PAGE, commitment: 'confirmed', ...(before === undefined ? {} : { before }) }).send({ abortSignal: signal })
    for (const entry of list) entries.push({ signature: entry.signature, slot: entry.slot, blockTime: entry.blockTime === null ? null : Number(entry.blockTime), failed: entry.err !== null })
    if (list.length < SIGNATURES_PAGE) return { entries: entries.reverse(), complete: true }
    before = list[list.length - 1].signature
  }
  return { entries: entries.reverse(), complete: false }
}

/** One read per address for the parts of one analysis that share it (launch and clusters both read the mint's). */
export function createHistoryMemo (rpc: Rpc<GetSignaturesForAddressApi>, maxPages: number) {
  const reads = new Map<string, Promise<AddressHistory>>()
  return (address: Address, signal: AbortSignal): Promise<AddressHistory> => {
    const key = `${address}:${maxPages}`
    let read = reads.get(key)
    if (read === undefined) {
      read = readAddressHistory(rpc, address, maxPages, signal)
      reads.set(key, read)
      // Shared only while in flight: a later analysis reads the history anew.
      const forget = () => { if (reads.get(key) === read) reads.delete(key) }
      read.then(forget, forget)
    }
    return read
  }
}

/** Runs `task` over `items`, at most `limit` at a time, results in the items' order. */
export async function mapLimited<T, R> (items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await task(items[index])
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
