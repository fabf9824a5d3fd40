import { getAddMemoInstruction } from '@solana-program/memo'
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { getTransferCheckedInstruction as getTransferChecked2022Instruction, TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import {
  appendTransactionMessageInstructions, createTransactionMessage, getBase64EncodedWireTransaction, getSignatureFromTransaction, pipe,
  setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash, signTransactionMessageWithSigners,
  type Address, type TransactionSigner
} from '@solana/kit'
import type { RefundSent } from '../../db/contracts/refunds.js'
import { PAYMENT_TOKEN_DECIMALS } from '../payment/catalog.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { MEMO_V2_PROGRAM } from '../solana/networks.js'
import { callRpc, rpcUnavailable } from '../solana/rpc-errors.js'

export interface RefundTransferOptions {
  rpc: SolanaRpc
  /** The key of the merchant's token account (PAYMENT_ADDRESS): the transfer's authority. */
  merchant: TransactionSigner
  /** Pays the fee, as it does for x402 settlements (the merchant itself by default). */
  feePayer: TransactionSigner
  mint: Address
}

/**
 * Builds and signs, sending nothing, the refund's one TransferChecked of `amount` from the
 * merchant's associated token account back to the paying token account, with a memo naming the
 * payment (the refund can be found from it on chain). The signature and bytes are recorded before
 * anything is sent, so a re-send is this transaction, never a second one.
 */
export function createRefundTransfer (options: RefundTransferOptions) {
  const { rpc, mint } = options
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

  return async function buildRefund (payment: string, destination: Address, amount: bigint): Promise<RefundSent> {
    const [program, { value: lifetime }] = await callRpc(async () => await Promise.all([
      tokenProgramOfMint(),
      rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()
    ]).catch((error: unknown) => { throw rpcUnavailable(error) }))
    const [source] = await findAssociatedTokenPda({ owner: options.merchant.address, mint, tokenProgram: program })
    const transfer = program === TOKEN_2022_PROGRAM_ADDRESS ? getTransferChecked2022Instruction : getTransferCheckedInstruction
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      m => setTransactionMessageFeePayerSigner(options.feePayer, m),
      m => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      m => appendTransactionMessageInstructions([
        transfer({ source, mint, destination, authority: options.merchant, amount, decimals: PAYMENT_TOKEN_DECIMALS }, { programAddress: program }),
        getAddMemoInstruction({ memo: `token-merchant refund ${payment}` }, { programAddress: MEMO_V2_PROGRAM as Address })
      ], m)
    )
    const signed = await signTransactionMessageWithSigners(message)
    return { signature: getSignatureFromTransaction(signed), wire: getBase64EncodedWireTransaction(signed), lastValidBlockHeight: lifetime.lastValidBlockHeight }
  }
}

export type BuildRefund = ReturnType<typeof createRefundTransfer>
