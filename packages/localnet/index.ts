// Programmatic API of the local chain: start it on 127.0.0.1, set up mints/wallets/balances with real
// transactions, move the clock, and steer the RPC front for failure tests.
import {
  createSolanaRpc,
  generateKeyPairSigner,
  type Address,
  type Base64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type TransactionSigner,
} from '@solana/kit'
import { Chain } from './chain.js'
import { Faucet } from './faucet.js'
import { RpcServer, type FailureBehaviour } from './rpc-server.js'
import { rpcMethods } from './methods/index.js'
import { buildSignedTransaction } from './tx-builder.js'
import { parseWireTransaction } from './encoding/wire-transaction.js'
import { describeTransactionError, type UiTransactionError } from './encoding/transaction-error.js'
import { TokenSetup, type CreateMintOptions } from './token-setup.js'
import type { ClockMode } from './clock.js'
import type { AccountFixture } from './account-file.js'

export type { CreateMintOptions, MintExtensionsOptions } from './token-setup.js'
export type { FailureBehaviour } from './rpc-server.js'
export type { ClockMode } from './clock.js'
export { LOCALNET_GENESIS_HASH } from './chain.js'
export { MEMO_V1_PROGRAM, MEMO_V3_PROGRAM, MEMO_P_PROGRAM } from './memo-programs.js'
export { parseAccountFile, readAccountDir, readAccountFile, type AccountFixture } from './account-file.js'

export const DEFAULT_WALLET_LAMPORTS = 10_000_000_000n
/** Payer and default mint authority of setup transactions. */
const AUTHORITY_LAMPORTS = 1_000_000n * 1_000_000_000n

export interface StartLocalnetOptions {
  /** 0 (default) picks a free port */
  port?: number;
  host?: string;
  /** unix seconds of the chain clock at start (default: now) */
  startTime?: number;
  /** 'wall' (default): time flows from startTime; 'manual': frozen, moves only with advanceClock */
  clock?: ClockMode;
  /** accounts written before the chain serves, like `solana-test-validator --account` (see readAccountDir) */
  accounts?: AccountFixture[];
}

export interface SendInstructionsOptions {
  feePayer?: TransactionSigner;
  version?: 0 | 'legacy';
  skipPreflight?: boolean;
}

export interface Localnet {
  url: string;
  rpc: Rpc<SolanaRpcApi>;
  /** fee payer of setup transactions and mint authority of mints created without one */
  authority: KeyPairSigner;
  stop(): Promise<void>;
  createMint(options: CreateMintOptions): Promise<Address>;
  createWallet(lamports?: bigint): Promise<KeyPairSigner>;
  airdrop(address: Address, lamports: bigint): Promise<void>;
  mintTo(mint: Address, owner: Address, amount: bigint): Promise<Address>;
  createAta(mint: Address, owner: Address): Promise<Address>;
  sendInstructions(instructions: Instruction[], signers: TransactionSigner[], options?: SendInstructionsOptions): Promise<Signature>;
  advanceClock(seconds: number): void;
  now(): number;
  /** produce empty slots, e.g. to expire blockhashes (150 slots) */
  advanceSlots(count: number): void;
  slot(): number;
  /** Writes an account directly, like `solana-test-validator --account` (fixtures such as lookup tables). */
  setAccount(address: Address, account: { lamports: bigint; data: Uint8Array; owner: Address; executable?: boolean }): void;
  stats(): Record<string, number>;
  resetStats(): void;
  failMethod(method: string, behaviour: FailureBehaviour | null): void;
  setLatency(ms: number): void;
}

/** A setup transaction that did not succeed. */
export class LocalnetTransactionError extends Error {
  constructor (
    readonly signature: string,
    readonly err: UiTransactionError,
    readonly logs: string[]
  ) {
    super(`localnet transaction ${signature} failed: ${describeTransactionError(err, logs)}\n${logs.join('\n')}`)
  }
}

/** SPL Token's native mint (spl-token program/src/native_mint.rs). */
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112' as Address

export async function startLocalnet (options: StartLocalnetOptions = {}): Promise<Localnet> {
  const chain = await Chain.create({ startTime: options.startTime, clockMode: options.clock })
  const faucet = await Faucet.create(chain)
  const authority = await generateKeyPairSigner()
  const funding = await faucet.airdrop(authority.address, AUTHORITY_LAMPORTS)
  if (funding.report.err) throw new Error(`localnet: funding the setup authority failed: ${JSON.stringify(funding.report.err)}`)

  /** In-process: sign with kit, land it on the chain (not through HTTP, so RPC stats stay the service's own). */
  const execute = async (instructions: Instruction[], signers: TransactionSigner[]): Promise<string> => {
    const bytes = await buildSignedTransaction(instructions, { feePayer: authority, signers, lifetime: chain.latestBlockhash() })
    const { report } = chain.submit(parseWireTransaction(bytes))
    if (report.err !== null) throw new LocalnetTransactionError(report.signature, report.err, report.logs)
    return report.signature
  }
  const tokens = new TokenSetup({ chain, payer: authority, execute })
  // Every real cluster has SPL Token's native mint (wrapped SOL) from genesis: 9 decimals, no
  // authority, supply field 0. Without it, wrapped SOL would be an unknown mint here only.
  await tokens.createMint({ address: NATIVE_MINT, decimals: 9, mintAuthority: null, freezeAuthority: null })

  for (const fixture of options.accounts ?? []) chain.engine.setAccount(fixture.address, fixture.account)

  const server = new RpcServer(rpcMethods, { chain, faucet })
  const host = options.host ?? '127.0.0.1'
  const url = await server.listen(options.port ?? 0, host)
  const rpc = createSolanaRpc(url)

  const airdrop = async (address: Address, lamports: bigint): Promise<void> => {
    const { report } = await faucet.airdrop(address, lamports)
    if (report.err !== null) throw new LocalnetTransactionError(report.signature, report.err, report.logs)
  }

  return {
    url,
    rpc,
    authority,
    stop: () => server.close(),
    createMint: (mintOptions) => tokens.createMint(mintOptions),
    async createWallet (lamports = DEFAULT_WALLET_LAMPORTS) {
      const wallet = await generateKeyPairSigner()
      if (lamports > 0n) await airdrop(wallet.address, lamports)
      return wallet
    },
    airdrop,
    mintTo: (mint, owner, amount) => tokens.mintTo(mint, owner, amount),
    createAta: (mint, owner) => tokens.createAta(mint, owner),
    async sendInstructions (instructions, signers, sendOptions = {}) {
      const feePayer = sendOptions.feePayer ?? signers[0]
      if (!feePayer) throw new Error('sendInstructions: give a feePayer or at least one signer')
      const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()
      const bytes = await buildSignedTransaction(instructions, { feePayer, signers, version: sendOptions.version ?? 0, lifetime })
      const wire = Buffer.from(bytes).toString('base64') as Base64EncodedWireTransaction
      return rpc
        .sendTransaction(wire, { encoding: 'base64', skipPreflight: sendOptions.skipPreflight ?? false, preflightCommitment: 'confirmed' })
        .send()
    },
    advanceClock: (seconds) => chain.clock.advance(seconds),
    now: () => chain.clock.now(),
    advanceSlots: (count) => chain.advanceSlots(count),
    slot: () => chain.slot,
    setAccount: (address, account) => chain.engine.setAccount(address, { executable: false, ...account }),
    stats: () => server.stats(),
    resetStats: () => server.resetStats(),
    failMethod: (method, behaviour) => server.failMethod(method, behaviour),
    setLatency: (ms) => server.setLatency(ms),
  }
}
