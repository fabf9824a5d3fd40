import {
  appendTransactionMessageInstruction,
  createTransactionMessage,
  fetchEncodedAccount,
  fetchEncodedAccounts,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isAddress,
  isSome,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type GetAccountInfoApi,
  type GetBlockHeightApi,
  type GetLatestBlockhashApi,
  type GetMultipleAccountsApi,
  type GetSignatureStatusesApi,
  type Rpc,
  type SendTransactionApi,
  type Signature,
  type TransactionSigner
} from '@solana/kit'
import {
  findAssociatedTokenPda,
  getMintDecoder as getTokenMintDecoder,
  getTokenDecoder as getTokenAccountDecoder,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS
} from '@solana-program/token'
import {
  getMintDecoder as getToken2022MintDecoder,
  getTokenDecoder as getToken2022AccountDecoder,
  TOKEN_2022_PROGRAM_ADDRESS,
  type Extension
} from '@solana-program/token-2022'
import { formatTokenAmount } from '../lib/payment/catalog.js'
import { isRpcUnavailable } from '../lib/solana/rpc-errors.js'
import type { PaymentRequirement } from './documents.js'
import { BuyerError } from './errors.js'

/** The RPC methods a purchase uses. */
export type BuyerRpc = Rpc<GetAccountInfoApi & GetMultipleAccountsApi & GetLatestBlockhashApi & SendTransactionApi & GetSignatureStatusesApi & GetBlockHeightApi>
export type Commitment = 'confirmed' | 'finalized'

/** Everything a payment needs, read from the chain before anything is signed. */
export interface PaymentPlan {
  mint: Address
  tokenProgram: Address
  decimals: number
  amount: bigint
  /** The buyer's associated token account, and its balance before paying. */
  source: Address
  balance: bigint
  /** The recipient's associated token account. */
  destination: Address
}

const SYSTEM_PROGRAM = '11111111111111111111111111111111'

function describeRpcFailure (error: unknown): string {
  if (isRpcUnavailable(error)) {
    const cause = (error as { cause?: { code?: unknown } }).cause
    return typeof cause?.code === 'string' ? `unreachable (${cause.code})` : 'unavailable'
  }
  return (error as Error).message
}

/** "Transaction simulation failed: Custom program error: #1 (instruction #1)", with the program's last log line. */
function describeRefusal (error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } }).cause
  const logs = (error as { context?: { logs?: unknown } }).context?.logs
  const lastLog = Array.isArray(logs) ? logs.filter(line => typeof line === 'string' && line.includes('Error')).at(-1) as string | undefined : undefined
  return [(error as Error).message, typeof cause?.message === 'string' ? cause.message : undefined, lastLog].filter(Boolean).join(': ')
}

async function readChain<T> (what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw new BuyerError('RPC_UNAVAILABLE', `could not read ${what} from the Solana RPC: ${describeRpcFailure(error)}; nothing was paid`, {}, { cause: error })
  }
}

/** Extensions that would make a plain transferChecked fail or deliver less than the price. */
function unsupportedExtensions (extensions: readonly Extension[]): string[] {
  const problems: string[] = []
  for (const extension of extensions) {
    if (extension.__kind === 'TransferFeeConfig' &&
      (extension.newerTransferFee.transferFeeBasisPoints > 0 || extension.olderTransferFee.transferFeeBasisPoints > 0)) {
      problems.push('it charges a transfer fee, so the recipient would receive less than the price')
    }
    if (extension.__kind === 'TransferHook' && extension.programId !== SYSTEM_PROGRAM) problems.push('it has a transfer hook')
    if (extension.__kind === 'NonTransferable') problems.push('it is non-transferable')
    if (extension.__kind === 'PausableConfig' && extension.paused) problems.push('it is paused')
  }
  return problems
}

/**
 * Reads the mint (its owner decides Token or Token-2022, its data the decimals), derives both
 * associated token accounts and checks, before anything is signed, that the recipient's exists
 * (nothing is created for it) and that the buyer's holds the amount.
 */
export async function preparePayment (rpc: BuyerRpc, payer: Address, requirement: PaymentRequirement, amount: bigint): Promise<PaymentPlan> {
  const { asset, payTo } = requirement
  if (!isAddress(asset) || !isAddress(payTo)) {
    throw new BuyerError('REQUIREMENTS_MISMATCH', `the payment requirement names an invalid ${isAddress(asset) ? 'recipient' : 'mint'} address`)
  }
  const mintAccount = await readChain(`the mint ${asset}`, () => fetchEncodedAccount(rpc, asset))
  if (!mintAccount.exists) throw new BuyerError('UNSUPPORTED_MINT', `the payment mint ${asset} does not exist on this cluster (is --rpc the merchant's network?)`)
  const tokenProgram = mintAccount.programAddress
  let decimals: number
  if (tokenProgram === TOKEN_PROGRAM_ADDRESS) {
    decimals = getTokenMintDecoder().decode(mintAccount.data).decimals
  } else if (tokenProgram === TOKEN_2022_PROGRAM_ADDRESS) {
    const mint = getToken2022MintDecoder().decode(mintAccount.data)
    decimals = mint.decimals
    const problems = isSome(mint.extensions) ? unsupportedExtensions(mint.extensions.value) : []
    if (problems.length > 0) throw new BuyerError('UNSUPPORTED_MINT', `cannot pay in the mint ${asset}: ${problems.join('; ')}`, { problems })
  } else {
    throw new BuyerError('UNSUPPORTED_MINT', `${asset} is not a token mint (owned by ${tokenProgram})`)
  }
  const requiredDecimals = requirement.extra?.decimals
  if (requiredDecimals !== undefined && requiredDecimals !== decimals) {
    throw new BuyerError('REQUIREMENTS_MISMATCH', `the requirement says ${requiredDecimals} decimals; the mint ${asset} has ${decimals}`)
  }

  const [[source], [destination]] = await Promise.all([
    findAssociatedTokenPda({ mint: asset, owner: payer, tokenProgram }),
    findAssociatedTokenPda({ mint: asset, owner: payTo, tokenProgram })
  ])
  const announced = requirement.extra?.recipientTokenAccount
  if (announced !== undefined && announced !== destination) {
    throw new BuyerError('REQUIREMENTS_MISMATCH', `the requirement names ${announced} as the recipient's token account; the associated token account of ${payTo} is ${destination}`)
  }

  const [sourceAccount, destinationAccount] = await readChain('the token accounts', () => fetchEncodedAccounts(rpc, [source, destination]))
  if (!destinationAccount.exists) {
    throw new BuyerError('RECIPIENT_ACCOUNT_MISSING',
      `the recipient ${payTo} has no token account for ${asset} (${destination} does not exist); the client creates nothing it was not asked to, so nothing was paid`,
      { destination })
  }
  const accountDecoder = tokenProgram === TOKEN_PROGRAM_ADDRESS ? getTokenAccountDecoder() : getToken2022AccountDecoder()
  const balance = sourceAccount.exists ? accountDecoder.decode(sourceAccount.data).amount : 0n
  if (balance < amount) {
    throw new BuyerError('INSUFFICIENT_FUNDS',
      `the buyer ${payer} holds ${formatTokenAmount(balance, decimals)} of ${asset} in ${source}; ${formatTokenAmount(amount, decimals)} is needed`,
      { balance: balance.toString(), required: amount.toString() })
  }
  return { mint: asset, tokenProgram, decimals, amount, source, balance, destination }
}

export interface SentPayment {
  signature: Signature
  /** The transaction cannot land after this block height. */
  lastValidBlockHeight: bigint
}

/**
 * Signs and sends one transaction holding a single transferChecked. A node that refuses it
 * (preflight) means it never landed: PAYMENT_SEND_FAILED. A transport failure leaves the outcome
 * unknown, so the signature is returned all the same and the confirmation wait decides.
 */
export async function sendPayment (rpc: BuyerRpc, signer: TransactionSigner, plan: PaymentPlan, commitment: Commitment): Promise<SentPayment> {
  const { value: lifetime } = await readChain('a recent blockhash', () => rpc.getLatestBlockhash({ commitment }).send())
  const transfer = getTransferCheckedInstruction({
    source: plan.source,
    mint: plan.mint,
    destination: plan.destination,
    authority: signer,
    amount: plan.amount,
    decimals: plan.decimals
  }, { programAddress: plan.tokenProgram })
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    m => setTransactionMessageFeePayerSigner(signer, m),
    m => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    m => appendTransactionMessageInstruction(transfer, m)
  )
  const transaction = await signTransactionMessageWithSigners(message)
  const signature = getSignatureFromTransaction(transaction)
  try {
    await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64', preflightCommitment: commitment }).send()
  } catch (error) {
    // A transport failure is not a refusal: the transaction may have gone through.
    if (!isRpcUnavailable(error)) {
      throw new BuyerError('PAYMENT_SEND_FAILED', `the Solana RPC refused the payment transaction (${describeRefusal(error)}); nothing was paid`,
        { signature }, { cause: error })
    }
  }
  return { signature, lastValidBlockHeight: lifetime.lastValidBlockHeight }
}

export interface ConfirmOptions {
  commitment: Commitment
  timeoutMs: number
  pollIntervalMs: number
}

function reached (status: string | null, commitment: Commitment): boolean {
  return status === 'finalized' || (commitment === 'confirmed' && status === 'confirmed')
}

/**
 * Polls getSignatureStatuses (plain HTTP, no websocket) until the payment reaches the commitment.
 * A transaction failed on chain is PAYMENT_FAILED; one the chain never saw before its blockhash
 * expired is PAYMENT_SEND_FAILED; no answer in time is PAYMENT_UNCONFIRMED (it may still land:
 * never pay again, retry the delivery with the signature later).
 */
export async function waitForConfirmation (rpc: BuyerRpc, sent: SentPayment, options: ConfirmOptions): Promise<void> {
  const { signature } = sent
  const deadline = Date.now() + options.timeoutMs
  let lastProblem = 'not seen yet'
  for (;;) {
    try {
      // Height first: once it is past the lifetime, a status still missing afterwards can never come.
      const expired = await rpc.getBlockHeight({ commitment: options.commitment }).send() > sent.lastValidBlockHeight
      const { value: [status] } = await rpc.getSignatureStatuses([signature]).send()
      if (status !== null && status !== undefined) {
        if (status.err !== null) {
          throw new BuyerError('PAYMENT_FAILED', `the payment transaction ${signature} failed on chain (${JSON.stringify(status.err, (_k, v: unknown) => typeof v === 'bigint' ? v.toString() : v)}); the fee was spent, no tokens moved`, { signature })
        }
        if (reached(status.confirmationStatus, options.commitment)) return
        lastProblem = `seen at ${status.confirmationStatus ?? 'processed'}`
      } else if (expired) {
        throw new BuyerError('PAYMENT_SEND_FAILED', `the payment transaction ${signature} never landed and its blockhash expired; nothing was paid`, { signature })
      }
    } catch (error) {
      if (error instanceof BuyerError) throw error
      lastProblem = `RPC ${describeRpcFailure(error)}`
    }
    if (Date.now() + options.pollIntervalMs > deadline) {
      throw new BuyerError('PAYMENT_UNCONFIRMED',
        `the payment ${signature} was not ${options.commitment} within ${options.timeoutMs / 1000} s (${lastProblem}); it may still land: do not pay again, retry the delivery with this signature`,
        { signature })
    }
    await new Promise(resolve => setTimeout(resolve, options.pollIntervalMs))
  }
}
