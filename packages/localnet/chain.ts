// The ledger-producing side of the localnet: checks a transaction the way a leader does (signatures,
// blockhash age, duplicates, lookup tables), executes it in LiteSVM in a slot of its own, and records
// it with full metadata when it was committed (success, or failure with the fee charged).
import { encodeBase58 } from './encoding/base58.js'
import { createHash } from 'node:crypto'
import { Engine, FailedTransactionMetadata, type EngineAccount, type TransactionMetadata } from './svm.js'
import { ChainClock, type ClockMode } from './clock.js'
import { RecentBlockhashes } from './blockhashes.js'
import { Ledger, type RecordedInnerInstruction, type RecordedMeta, type TransactionRecord } from './ledger.js'
import { isStaticKeyWritable, type WireTransaction } from './encoding/wire-transaction.js'
import { toUiTransactionError, type UiTransactionError } from './encoding/transaction-error.js'
import { collectTokenBalances } from './encoding/token-balances.js'
import { extractMemoField } from './encoding/memos.js'
import { MEMO_PROGRAMS_IN_SIGNATURE_LIST } from './memo-programs.js'

/** A fixed genesis hash of our own, distinct from devnet, testnet and mainnet-beta. */
export const LOCALNET_GENESIS_HASH = encodeBase58(createHash('sha256').update('token-merchant localnet genesis v1').digest())

const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111'
const ADDRESS_LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111'
const LAMPORTS_PER_SIGNATURE = 5000n
const LOOKUP_TABLE_META_SIZE = 56

export interface LoadedAddresses {
  writable: string[];
  readonly: string[];
}

/** What a simulation or an execution produced, in the units the RPC layer renders. */
export interface ExecutionReport {
  signature: string;
  err: UiTransactionError | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: RecordedMeta['returnData'];
  innerInstructions: RecordedMeta['innerInstructions'];
  fee: bigint;
  loadedAccountsDataSize: number;
  loadedAddresses: LoadedAddresses | null;
  accountKeys: string[];
}

export interface SimulationResult {
  report: ExecutionReport;
  postAccounts: Map<string, EngineAccount>;
}

export interface SubmitResult {
  report: ExecutionReport;
  /** present when the transaction landed in a slot (its fee was charged) */
  record?: TransactionRecord;
}

export interface ChainOptions {
  startTime?: number;
  clockMode?: ClockMode;
}

export class Chain {
  readonly ledger = new Ledger()
  readonly clock: ChainClock
  private readonly blockhashes = new RecentBlockhashes(LOCALNET_GENESIS_HASH)
  private currentSlot = 0

  private constructor (readonly engine: Engine, options: ChainOptions) {
    this.clock = new ChainClock(options.startTime, options.clockMode)
    this.blockhashes.produce(0)
    this.engine.setClock(0n, BigInt(this.clock.now()))
  }

  static async create (options: ChainOptions = {}): Promise<Chain> {
    return new Chain(await Engine.create(), options)
  }

  get slot (): number {
    return this.currentSlot
  }

  /** No slot is ever skipped, so block height equals slot. */
  get blockHeight (): number {
    return this.currentSlot
  }

  latestBlockhash (): { blockhash: string; lastValidBlockHeight: number } {
    return { blockhash: this.blockhashes.hashOf(this.currentSlot), lastValidBlockHeight: this.blockhashes.lastValidBlockHeight(this.currentSlot) }
  }

  isBlockhashValid (blockhash: string): boolean {
    return this.blockhashes.isValidFor(blockhash, this.currentSlot + 1)
  }

  /** Produces empty slots (e.g. to let blockhashes expire). */
  advanceSlots (count: number): void {
    for (let i = 0; i < count; i++) this.openNextSlot()
  }

  getAccount (address: string): EngineAccount | null {
    return this.engine.getAccount(address)
  }

  simulate (tx: WireTransaction, options: { verifySignatures: boolean; replaceRecentBlockhash: boolean }): SimulationResult {
    const precheck = this.precheck(tx, { checkBlockhash: !options.replaceRecentBlockhash, checkDuplicate: false })
    if ('err' in precheck) return { report: this.rejectedReport(tx, precheck.err), postAccounts: new Map() }
    this.engine.setClock(BigInt(this.currentSlot + 1), BigInt(this.clock.now()))
    const { result, postAccounts } = this.engine.simulate(tx.bytes, tx.version, options.verifySignatures)
    const keys = precheck.accountKeys
    const loadedSize = keys.reduce((sum, key) => sum + (this.engine.getAccount(key)?.data.length ?? 0), 0)
    return { report: this.executedReport(tx, result, keys, precheck.loaded, loadedSize), postAccounts }
  }

  submit (tx: WireTransaction): SubmitResult {
    const precheck = this.precheck(tx, { checkBlockhash: true, checkDuplicate: true })
    if ('err' in precheck) return { report: this.rejectedReport(tx, precheck.err) }
    const keys = precheck.accountKeys
    const pre = keys.map((key) => this.engine.getAccount(key))
    const preTokenBalances = collectTokenBalances(pre, (key) => this.engine.getAccount(key))
    const landingSlot = this.currentSlot + 1
    const blockTime = this.clock.now()
    this.engine.setClock(BigInt(landingSlot), BigInt(blockTime))
    this.engine.newBlock()
    const result = this.engine.send(tx.bytes, tx.version)
    const loadedSize = pre.reduce((sum, account) => sum + (account?.data.length ?? 0), 0)
    const report = this.executedReport(tx, result, keys, precheck.loaded, loadedSize)
    const post = keys.map((key) => this.engine.getAccount(key))

    // A failure before execution (unknown fee payer, no funds for the fee, bad signature) never lands;
    // a failure during execution lands with its fee charged, exactly like on a cluster.
    const feePayerCharged = (post[0]?.lamports ?? 0n) !== (pre[0]?.lamports ?? 0n)
    const committed = !(result instanceof FailedTransactionMetadata) || feePayerCharged
    if (!committed) return { report }

    this.openNextSlot()
    const record: TransactionRecord = {
      signature: report.signature,
      slot: landingSlot,
      blockTime,
      tx,
      loadedAddresses: precheck.loaded,
      accountKeys: keys,
      memo: extractMemoField(tx, MEMO_PROGRAMS_IN_SIGNATURE_LIST),
      meta: {
        err: report.err,
        fee: report.fee,
        preBalances: pre.map((account) => account?.lamports ?? 0n),
        postBalances: post.map((account) => account?.lamports ?? 0n),
        preTokenBalances,
        postTokenBalances: collectTokenBalances(post, (key) => this.engine.getAccount(key)),
        logMessages: report.logs,
        innerInstructions: report.innerInstructions,
        computeUnitsConsumed: report.unitsConsumed,
        costUnits: estimateCostUnits(tx, precheck.loaded, report.unitsConsumed),
        returnData: report.returnData,
      },
    }
    this.ledger.add(record)
    return { report, record }
  }

  private openNextSlot (): void {
    this.currentSlot += 1
    this.blockhashes.produce(this.currentSlot)
  }

  private precheck (
    tx: WireTransaction,
    checks: { checkBlockhash: boolean; checkDuplicate: boolean }
  ): { err: UiTransactionError } | { accountKeys: string[]; loaded: LoadedAddresses } {
    if (tx.signatures.length !== tx.header.numRequiredSignatures || tx.staticAccountKeys.length === 0) return { err: 'SanitizeFailure' }
    if (checks.checkBlockhash && !this.isBlockhashValid(tx.recentBlockhash) && !this.usesValidDurableNonce(tx)) {
      return { err: 'BlockhashNotFound' }
    }
    if (checks.checkDuplicate && this.ledger.has(signatureOf(tx))) return { err: 'AlreadyProcessed' }
    const loaded = this.resolveLookupTables(tx)
    if ('err' in loaded) return loaded
    return { accountKeys: [...tx.staticAccountKeys, ...loaded.writable, ...loaded.readonly], loaded }
  }

  /** A durable-nonce transaction starts with AdvanceNonceAccount and carries the nonce as its blockhash. */
  private usesValidDurableNonce (tx: WireTransaction): boolean {
    const first = tx.instructions[0]
    if (!first || tx.staticAccountKeys[first.programIdIndex] !== SYSTEM_PROGRAM) return false
    if (first.data.length !== 4 || first.data[0] !== 4 || first.data[1] || first.data[2] || first.data[3]) return false
    const nonceKey = tx.staticAccountKeys[first.accounts[0]]
    const nonce = nonceKey ? this.engine.getAccount(nonceKey) : null
    if (!nonce || nonce.owner !== SYSTEM_PROGRAM || nonce.data.length !== 80) return false
    return encodeBase58(nonce.data.subarray(40, 72)) === tx.recentBlockhash
  }

  private resolveLookupTables (tx: WireTransaction): LoadedAddresses | { err: UiTransactionError } {
    const loaded: LoadedAddresses = { writable: [], readonly: [] }
    for (const lookup of tx.addressTableLookups) {
      const table = this.engine.getAccount(lookup.accountKey)
      if (!table) return { err: 'AddressLookupTableNotFound' }
      if (table.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) return { err: 'InvalidAddressLookupTableOwner' }
      if (table.data.length < LOOKUP_TABLE_META_SIZE || (table.data.length - LOOKUP_TABLE_META_SIZE) % 32 !== 0) {
        return { err: 'InvalidAddressLookupTableData' }
      }
      const count = (table.data.length - LOOKUP_TABLE_META_SIZE) / 32
      const at = (index: number) => encodeBase58(table.data.subarray(LOOKUP_TABLE_META_SIZE + index * 32, LOOKUP_TABLE_META_SIZE + (index + 1) * 32))
      for (const index of [...lookup.writableIndexes, ...lookup.readonlyIndexes]) {
        if (index >= count) return { err: 'InvalidAddressLookupTableIndex' }
      }
      loaded.writable.push(...lookup.writableIndexes.map(at))
      loaded.readonly.push(...lookup.readonlyIndexes.map(at))
    }
    return loaded
  }

  private rejectedReport (tx: WireTransaction, err: UiTransactionError): ExecutionReport {
    return {
      signature: signatureOf(tx),
      err,
      logs: [],
      unitsConsumed: 0n,
      returnData: null,
      innerInstructions: [],
      fee: transactionFee(tx),
      loadedAccountsDataSize: 0,
      loadedAddresses: null,
      accountKeys: tx.staticAccountKeys,
    }
  }

  private executedReport (
    tx: WireTransaction,
    result: TransactionMetadata | FailedTransactionMetadata,
    accountKeys: string[],
    loaded: LoadedAddresses,
    loadedAccountsDataSize: number
  ): ExecutionReport {
    const failed = result instanceof FailedTransactionMetadata
    const meta = failed ? result.meta() : result
    const returned = meta.returnData()
    const returnBytes = returned.data()
    return {
      signature: signatureOf(tx),
      err: failed ? toUiTransactionError(result.err()) : null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData: returnBytes.length > 0 ? { programId: encodeBase58(returned.programId()), data: returnBytes } : null,
      innerInstructions: innerInstructionsOf(meta),
      fee: transactionFee(tx),
      loadedAccountsDataSize,
      loadedAddresses: loaded,
      accountKeys,
    }
  }
}

export function signatureOf (tx: WireTransaction): string {
  return encodeBase58(tx.signatures[0] ?? new Uint8Array(64))
}

function innerInstructionsOf (meta: TransactionMetadata): RecordedMeta['innerInstructions'] {
  const groups: RecordedMeta['innerInstructions'] = []
  meta.innerInstructions().forEach((inner, index) => {
    if (inner.length === 0) return
    const instructions: RecordedInnerInstruction[] = inner.map((item) => {
      const compiled = item.instruction()
      return { programIdIndex: compiled.programIdIndex(), accounts: Array.from(compiled.accounts()), data: compiled.data(), stackHeight: item.stackHeight() }
    })
    groups.push({ index, instructions })
  })
  return groups
}

/** Base fee per signature plus the prioritization fee set through the compute-budget program. */
export function transactionFee (tx: WireTransaction): bigint {
  let unitLimit: bigint | undefined
  let microLamportsPerUnit = 0n
  let otherInstructions = 0n
  for (const instruction of tx.instructions) {
    const program = tx.staticAccountKeys[instruction.programIdIndex]
    const view = new DataView(instruction.data.buffer, instruction.data.byteOffset, instruction.data.byteLength)
    if (program !== COMPUTE_BUDGET_PROGRAM) otherInstructions += 1n
    else if (instruction.data[0] === 2 && instruction.data.length >= 5) unitLimit = BigInt(view.getUint32(1, true))
    else if (instruction.data[0] === 3 && instruction.data.length >= 9) microLamportsPerUnit = view.getBigUint64(1, true)
  }
  const limit = unitLimit ?? minBigInt(otherInstructions * 200_000n, 1_400_000n)
  const priorityFee = (microLamportsPerUnit * limit + 999_999n) / 1_000_000n
  return LAMPORTS_PER_SIGNATURE * BigInt(tx.header.numRequiredSignatures) + priorityFee
}

function minBigInt (a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

/** Approximation of agave's cost model: signatures, write locks, instruction bytes, executed units. */
function estimateCostUnits (tx: WireTransaction, loaded: LoadedAddresses, unitsConsumed: bigint): bigint {
  let writable = loaded.writable.length
  for (let i = 0; i < tx.staticAccountKeys.length; i++) if (isStaticKeyWritable(tx, i)) writable++
  const dataBytes = tx.instructions.reduce((sum, instruction) => sum + instruction.data.length, 0)
  return 720n * BigInt(tx.header.numRequiredSignatures) + 300n * BigInt(writable) + BigInt(Math.floor(dataBytes / 4)) + unitsConsumed
}
