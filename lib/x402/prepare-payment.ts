import { randomBytes } from 'node:crypto'
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget'
import { getAddMemoInstruction } from '@solana-program/memo'
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { getTransferCheckedInstruction as getTransferChecked2022Instruction, TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address
} from '@solana/kit'
import { PAYMENT_TOKEN_DECIMALS } from '../payment/catalog.js'
import { rpcUnavailable } from '../solana/rpc-errors.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { MEMO_V2_PROGRAM } from '../solana/networks.js'
import { MAX_COMPUTE_UNIT_LIMIT, MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS } from './transaction-rules.js'

/**
 * Compute units a TransferChecked with a memo asks for, as the official x402 client does (about
 * 6,000 are used); far inside MAX_COMPUTE_UNIT_LIMIT.
 */
export const PREPARED_COMPUTE_UNIT_LIMIT = 20_000
/** One micro-lamport per unit: the smallest non-zero priority fee (1 lamport at this limit). */
const PREFERRED_UNIT_PRICE = 1n
/** SPL token account layout (Token and Token-2022 alike): the amount is a u64 at byte 64. */
const TOKEN_ACCOUNT_AMOUNT_OFFSET = 64
const TOKEN_ACCOUNT_MIN_LENGTH = 165

export interface PaymentPreparerOptions {
  rpc: SolanaRpc
  feePayer: Address
  payTo: Address
  mint: Address
  /** X402_MAX_PRIORITY_FEE_LAMPORTS: the prepared budget stays within it. */
  maxPriorityFeeLamports: bigint
}

/** An unsigned x402 `exact` transaction for one buyer, and what the buyer holds of the payment token. */
export interface PreparedPayment {
  /** base64 wire transaction, no signature yet: the buyer's wallet signs, the merchant co-signs at settlement. */
  transaction: string
  /** The buyer's balance of the payment mint, base units (0 without a token account). */
  balance: bigint
  lastValidBlockHeight: bigint
}

/** The unit price: the preferred one, lowered so that the priority fee never exceeds the merchant's cap. */
export function preparedUnitPrice (maxPriorityFeeLamports: bigint): bigint {
  const affordable = (maxPriorityFeeLamports * 1_000_000n) / BigInt(PREPARED_COMPUTE_UNIT_LIMIT)
  const price = affordable < PREFERRED_UNIT_PRICE ? affordable : PREFERRED_UNIT_PRICE
  return price > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS ? MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS : price
}

/**
 * Builds, for a browser page that reaches no RPC, the transaction an x402 client would build: a
 * compute budget within the merchant's caps, one TransferChecked of exactly the price from the
 * buyer's associated token account to payTo's, the merchant's fee payer, a random memo (so that
 * two purchases of the same URL are two transactions) and a recent blockhash. It signs nothing
 * and keeps nothing: the signed transaction comes back in PAYMENT-SIGNATURE and is judged by the
 * same rules as any other (lib/x402/transaction-rules.ts).
 */
export function createPaymentPreparer (options: PaymentPreparerOptions) {
  const { rpc, mint } = options
  if (PREPARED_COMPUTE_UNIT_LIMIT > MAX_COMPUTE_UNIT_LIMIT) throw new Error('the prepared compute unit limit exceeds the accepted one')
  const unitPrice = preparedUnitPrice(options.maxPriorityFeeLamports)
  let tokenProgram: Address | undefined

  /** The mint's token program: read once (a mint never changes owner). */
  async function tokenProgramOfMint (): Promise<Address> {
    if (tokenProgram !== undefined) return tokenProgram
    const { value } = await rpc.getAccountInfo(mint, { encoding: 'base64' }).send()
    const owner = value?.owner
    if (owner !== TOKEN_PROGRAM_ADDRESS && owner !== TOKEN_2022_PROGRAM_ADDRESS) throw new Error(`the payment mint ${mint} is not a token mint on this cluster`)
    tokenProgram = owner
    return owner
  }

  async function balanceOf (account: Address, program: Address): Promise<bigint> {
    const { value } = await rpc.getAccountInfo(account, { encoding: 'base64', commitment: 'confirmed' }).send()
    if (value === null || value.owner !== program) return 0n
    const bytes = Buffer.from(value.data[0], 'base64')
    if (bytes.length < TOKEN_ACCOUNT_MIN_LENGTH) return 0n
    return bytes.readBigUInt64LE(TOKEN_ACCOUNT_AMOUNT_OFFSET)
  }

  return {
    /** The unsigned payment of `amount` by `buyer`, with the buyer's balance; RPC_UNAVAILABLE when the node cannot answer. */
    async prepare (buyer: Address, amount: bigint): Promise<PreparedPayment> {
      try {
        const program = await tokenProgramOfMint()
        const [[source], [destination]] = await Promise.all([
          findAssociatedTokenPda({ owner: buyer, mint, tokenProgram: program }),
          findAssociatedTokenPda({ owner: options.payTo, mint, tokenProgram: program })
        ])
        const [balance, { value: lifetime }] = await Promise.all([
          balanceOf(source, program),
          rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()
        ])
        const transfer = program === TOKEN_2022_PROGRAM_ADDRESS ? getTransferChecked2022Instruction : getTransferCheckedInstruction
        const message = pipe(
          createTransactionMessage({ version: 0 }),
          m => setTransactionMessageFeePayer(options.feePayer, m),
          m => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
          m => appendTransactionMessageInstructions([
            getSetComputeUnitLimitInstruction({ units: PREPARED_COMPUTE_UNIT_LIMIT }),
            getSetComputeUnitPriceInstruction({ microLamports: unitPrice }),
            transfer({ source, mint, destination, authority: createNoopSigner(buyer), amount, decimals: PAYMENT_TOKEN_DECIMALS }, { programAddress: program }),
            getAddMemoInstruction({ memo: randomBytes(16).toString('hex') }, { programAddress: MEMO_V2_PROGRAM as Address })
          ], m)
        )
        return { transaction: getBase64EncodedWireTransaction(compileTransaction(message)), balance, lastValidBlockHeight: lifetime.lastValidBlockHeight }
      } catch (error) {
        throw rpcUnavailable(error)
      }
    }
  }
}

export type PaymentPreparer = ReturnType<typeof createPaymentPreparer>
