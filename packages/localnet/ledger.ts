// Every committed transaction (successful or failed-with-fee) with the metadata a node stores, indexed
// by signature and by each account key for getSignaturesForAddress.
import type { UiTransactionError } from './encoding/transaction-error.js'
import type { UiTransactionTokenBalance } from './encoding/token-balances.js'
import type { WireTransaction } from './encoding/wire-transaction.js'

export interface RecordedInnerInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number;
}

export interface RecordedMeta {
  err: UiTransactionError | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: UiTransactionTokenBalance[];
  postTokenBalances: UiTransactionTokenBalance[];
  logMessages: string[];
  innerInstructions: Array<{ index: number; instructions: RecordedInnerInstruction[] }>;
  computeUnitsConsumed: bigint;
  costUnits: bigint;
  returnData: { programId: string; data: Uint8Array } | null;
}

export interface TransactionRecord {
  signature: string;
  slot: number;
  blockTime: number;
  tx: WireTransaction;
  loadedAddresses: { writable: string[]; readonly: string[] };
  /** static keys, then loaded writable, then loaded readonly: the order accountIndex refers to */
  accountKeys: string[];
  meta: RecordedMeta;
  memo: string | null;
}

export interface SignaturePageQuery {
  before?: string;
  until?: string;
  limit: number;
}

export class Ledger {
  private readonly bySignature = new Map<string, TransactionRecord>()
  /** per address, oldest first; slots are strictly increasing so the arrays stay sorted by slot */
  private readonly byAddress = new Map<string, TransactionRecord[]>()

  get size (): number {
    return this.bySignature.size
  }

  add (record: TransactionRecord): void {
    this.bySignature.set(record.signature, record)
    for (const key of new Set(record.accountKeys)) {
      let list = this.byAddress.get(key)
      if (!list) this.byAddress.set(key, (list = []))
      list.push(record)
    }
  }

  get (signature: string): TransactionRecord | undefined {
    return this.bySignature.get(signature)
  }

  has (signature: string): boolean {
    return this.bySignature.has(signature)
  }

  /**
   * Newest first. `before` and `until` are exclusive bounds given by signature (of any transaction,
   * not only this address's); an unknown `before` yields nothing, an unknown `until` is ignored.
   */
  signaturesForAddress (address: string, query: SignaturePageQuery): TransactionRecord[] {
    const list = this.byAddress.get(address) ?? []
    let end = list.length // exclusive
    if (query.before !== undefined) {
      const before = this.bySignature.get(query.before)
      if (!before) return []
      end = lowerBoundBySlot(list, before.slot)
    }
    let start = 0
    if (query.until !== undefined) {
      const until = this.bySignature.get(query.until)
      if (until) start = lowerBoundBySlot(list, until.slot + 1)
    }
    const page: TransactionRecord[] = []
    for (let i = end - 1; i >= start && page.length < query.limit; i--) page.push(list[i])
    return page
  }
}

/** first index whose slot >= slot */
function lowerBoundBySlot (list: TransactionRecord[], slot: number): number {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (list[mid].slot < slot) low = mid + 1
    else high = mid
  }
  return low
}
