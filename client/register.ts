import {
  AccountRole,
  appendTransactionMessageInstructions,
  assertIsTransactionMessageWithinSizeLimit,
  createTransactionMessage,
  estimateResourceLimitsFactory,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isAddress,
  pipe,
  setTransactionMessageComputeUnitLimit,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type GetBlockHeightApi,
  type GetLatestBlockhashApi,
  type GetSignatureStatusesApi,
  type Instruction,
  type Rpc,
  type SendTransactionApi,
  type Signature,
  type SimulateTransactionApi,
  type TransactionError,
  type TransactionSigner
} from '@solana/kit'
import { getAddMemoInstruction } from '@solana-program/memo'
import { getTransferSolInstruction } from '@solana-program/system'
import { buildRegistrationMemo, InvalidRegistrationError } from '../lib/registry/registration-memo.js'
import { MEMO_V2_PROGRAM } from '../lib/solana/networks.js'

export type RegistrationRpc = Rpc<GetLatestBlockhashApi & SimulateTransactionApi & SendTransactionApi & GetSignatureStatusesApi & GetBlockHeightApi>
type Commitment = 'confirmed' | 'finalized'

/** The registration landed but failed on chain (the fee is spent; nothing was registered). */
export class RegistrationFailedError extends Error {
  constructor (readonly signature: Signature, readonly transactionError: TransactionError) {
    super(`registration transaction ${signature} failed: ${JSON.stringify(transactionError, (_key, value: unknown) => typeof value === 'bigint' ? value.toString() : value)}`)
    this.name = 'RegistrationFailedError'
  }
}

/** The blockhash expired before the transaction was seen: it never landed and can be sent again. */
export class RegistrationExpiredError extends Error {
  constructor (readonly signature: Signature) {
    super(`registration transaction ${signature} was not confirmed before its blockhash expired; nothing was spent, try again`)
    this.name = 'RegistrationExpiredError'
  }
}

/**
 * A System transfer of 0 lamports from the payer to itself that carries the registry address as
 * an extra read-only, non-signer account (a "reference key", as Solana Pay does). It puts the
 * registry among the transaction's account keys, so getSignaturesForAddress(registry) lists the
 * transaction, without moving lamports, without write-locking the shared registry address, and
 * without anybody's signature for it. (A transfer *to* the registry would make it writable, and
 * any amount below its rent-exempt minimum fails.)
 */
export function registryReferenceInstruction (payer: TransactionSigner, registryAddress: Address): Instruction {
  const transfer = getTransferSolInstruction({ source: payer, destination: payer.address, amount: 0n })
  return { ...transfer, accounts: [...transfer.accounts, { address: registryAddress, role: AccountRole.READONLY }] }
}

/**
 * The reference transfer, then the memo on the long-deployed MemoSq program with no accounts.
 * The memo program requires every account passed to it to sign, so the registry address cannot
 * go there; with none the rule holds trivially, and the fee payer's signature already proves who
 * registered.
 */
export function registrationInstructions (payer: TransactionSigner, registryAddress: Address, memo: string): Instruction[] {
  return [
    registryReferenceInstruction(payer, registryAddress),
    getAddMemoInstruction({ memo }, { programAddress: MEMO_V2_PROGRAM as Address })
  ]
}

const COMPUTE_MARGIN = 1.1
/** The runtime's cap on a transaction's compute units. */
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000

export interface RegisterAgentOptions {
  rpc: RegistrationRpc
  signer: TransactionSigner
  registryAddress: string
  name: string
  manifestUrl: string
  commitment?: Commitment
  pollIntervalMs?: number
  abortSignal?: AbortSignal
}

function reached (status: string | null, commitment: Commitment): boolean {
  return status === 'finalized' || (commitment === 'confirmed' && status === 'confirmed')
}

/**
 * Registers an agent: validates the name and URL (refusing a memo the registry would skip),
 * sizes the compute budget by simulation (a memo's cost grows with its length, and non-ASCII
 * names cost far more per byte), sends the transaction signed by `signer` (the wallet the registry
 * will list), and polls getSignatureStatuses until it reaches `commitment`. Returns the signature.
 */
export async function registerAgent (options: RegisterAgentOptions): Promise<Signature> {
  const { rpc, signer, registryAddress, commitment = 'confirmed', pollIntervalMs = 500, abortSignal } = options
  const memo = buildRegistrationMemo({ name: options.name, manifestUrl: options.manifestUrl })
  if (!isAddress(registryAddress)) throw new InvalidRegistrationError([`registry address ${registryAddress} is not a base58 Solana address`])

  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment }).send({ abortSignal })
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    m => setTransactionMessageFeePayerSigner(signer, m),
    m => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    m => appendTransactionMessageInstructions(registrationInstructions(signer, registryAddress, memo), m)
  )
  const { computeUnitLimit } = await estimateResourceLimitsFactory({ rpc })(message, { abortSignal })
  const sized = setTransactionMessageComputeUnitLimit(Math.min(MAX_COMPUTE_UNIT_LIMIT, Math.ceil(computeUnitLimit * COMPUTE_MARGIN)), message)
  assertIsTransactionMessageWithinSizeLimit(sized)
  const transaction = await signTransactionMessageWithSigners(sized)
  const signature = getSignatureFromTransaction(transaction)

  await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64', preflightCommitment: commitment })
    .send({ abortSignal })

  for (;;) {
    // Height first: once it is past the lifetime, a status still missing afterwards can never come.
    const expired = await rpc.getBlockHeight({ commitment }).send({ abortSignal }) > lifetime.lastValidBlockHeight
    const { value: [status] } = await rpc.getSignatureStatuses([signature]).send({ abortSignal })
    if (status !== null) {
      if (status.err !== null) throw new RegistrationFailedError(signature, status.err)
      if (reached(status.confirmationStatus, commitment)) return signature
    } else if (expired) {
      throw new RegistrationExpiredError(signature)
    }
    await new Promise(resolve => setTimeout(resolve, pollIntervalMs))
  }
}
