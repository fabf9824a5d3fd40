// The execution engine: a LiteSVM instance with the real System, SPL Token, Token-2022, ATA and
// address-lookup-table programs (LiteSVM's defaults) plus the deployed SPL Memo builds from bankrun.
import { encodeBase58, decodeBase58 } from './encoding/base58.js'
import { LiteSVM, Clock, FailedTransactionMetadata, type TransactionMetadata } from 'litesvm'
import type { Address } from '@solana/kit'
import { BPF_LOADER_2, MEMO_P_PROGRAM, MEMO_V1_PROGRAM, MEMO_V3_PROGRAM, loadMemoPrograms } from './memo-programs.js'

export { FailedTransactionMetadata }
export type { TransactionMetadata }

/** An account as the RPC layer needs it (rentEpoch is not exposed by LiteSVM's kit wrapper). */
export interface EngineAccount {
  lamports: bigint;
  data: Uint8Array;
  owner: Address;
  executable: boolean;
  rentEpoch: bigint;
}

interface RawAccount {
  lamports(): bigint;
  data(): Uint8Array;
  owner(): Uint8Array;
  executable(): boolean;
  rentEpoch(): bigint;
}

interface RawSimulation {
  meta(): TransactionMetadata;
  postAccounts(): Array<{ address: Uint8Array; account(): RawAccount }>;
}

/** The native binding under LiteSVM's kit wrapper; it takes wire bytes directly, which saves a decode/encode per call. */
interface RawLiteSvm {
  getAccount(pubkey: Uint8Array): RawAccount | null;
  getProgramAccounts(programId: Uint8Array): Array<{ address: Uint8Array; account(): RawAccount }>;
  sendLegacyTransaction(bytes: Uint8Array): TransactionMetadata | FailedTransactionMetadata;
  sendVersionedTransaction(bytes: Uint8Array): TransactionMetadata | FailedTransactionMetadata;
  simulateLegacyTransaction(bytes: Uint8Array): RawSimulation | FailedTransactionMetadata;
  simulateVersionedTransaction(bytes: Uint8Array): RawSimulation | FailedTransactionMetadata;
  setSigverify(on: boolean): void;
}

export interface SimulationOutcome {
  result: TransactionMetadata | FailedTransactionMetadata;
  postAccounts: Map<string, EngineAccount>;
}

function toEngineAccount (raw: RawAccount): EngineAccount {
  return {
    lamports: raw.lamports(),
    data: raw.data(),
    owner: (encodeBase58(raw.owner()) as Address),
    executable: raw.executable(),
    rentEpoch: raw.rentEpoch(),
  }
}

export class Engine {
  private constructor (
    readonly svm: LiteSVM,
    private readonly raw: RawLiteSvm
  ) {}

  static async create (): Promise<Engine> {
    const memo = await loadMemoPrograms()
    // Blockhash ages are checked by Chain (LiteSVM only accepts its single latest hash, a real node
    // accepts the last 150). History is kept by our ledger, so LiteSVM's own is switched off.
    const svm = new LiteSVM().withSigverify(true).withBlockhashCheck(false).withTransactionHistory(0n)
    // LiteSVM ships its own memo builds; replace them with the builds deployed on the public clusters.
    svm.addProgramWithLoader(MEMO_V1_PROGRAM, memo.v1, BPF_LOADER_2)
    svm.addProgramWithLoader(MEMO_V3_PROGRAM, memo.v3, BPF_LOADER_2)
    svm.addProgramWithLoader(MEMO_P_PROGRAM, memo.v3, BPF_LOADER_2)
    const raw = (svm as unknown as { inner: RawLiteSvm }).inner
    return new Engine(svm, raw)
  }

  getAccount (address: string): EngineAccount | null {
    const raw = this.raw.getAccount(decodeBase58(address))
    if (!raw) return null
    const account = toEngineAccount(raw)
    // LiteSVM keeps drained accounts as zero-lamport husks; a node reports them as absent.
    return account.lamports === 0n && !account.executable ? null : account
  }

  getProgramAccounts (programId: string): Array<{ address: Address; account: EngineAccount }> {
    return this.raw
      .getProgramAccounts(decodeBase58(programId))
      .map((entry) => ({ address: (encodeBase58(entry.address) as Address), account: toEngineAccount(entry.account()) }))
      .filter((entry) => entry.account.lamports > 0n)
  }

  setAccount (address: Address, account: Omit<EngineAccount, 'rentEpoch'>): void {
    this.svm.setAccount({
      address,
      lamports: account.lamports as never,
      data: account.data,
      programAddress: account.owner,
      executable: account.executable,
      space: BigInt(account.data.length),
    })
  }

  minimumBalanceForRentExemption (dataLength: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLength))
  }

  setClock (slot: bigint, unixTimestamp: bigint): void {
    const current = this.svm.getClock()
    this.svm.setClock(new Clock(slot, current.epochStartTimestamp, current.epoch, current.leaderScheduleEpoch, unixTimestamp))
  }

  /** Rotates LiteSVM's internal hash so durable-nonce advances behave like a new block. */
  newBlock (): void {
    this.svm.expireBlockhash()
  }

  send (bytes: Uint8Array, version: 'legacy' | 0): TransactionMetadata | FailedTransactionMetadata {
    return version === 'legacy' ? this.raw.sendLegacyTransaction(bytes) : this.raw.sendVersionedTransaction(bytes)
  }

  simulate (bytes: Uint8Array, version: 'legacy' | 0, verifySignatures: boolean): SimulationOutcome {
    if (!verifySignatures) this.raw.setSigverify(false)
    try {
      const result = version === 'legacy' ? this.raw.simulateLegacyTransaction(bytes) : this.raw.simulateVersionedTransaction(bytes)
      if (result instanceof FailedTransactionMetadata) return { result, postAccounts: new Map() }
      const postAccounts = new Map<string, EngineAccount>()
      for (const entry of result.postAccounts()) postAccounts.set((encodeBase58(entry.address) as Address), toEngineAccount(entry.account()))
      return { result: result.meta(), postAccounts }
    } finally {
      if (!verifySignatures) this.raw.setSigverify(true)
    }
  }
}
