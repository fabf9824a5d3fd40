import type { Address, Signature } from '@solana/kit'
import { amountReceived, signersOf, type PaymentTransaction } from '../payment/verify-transaction.js'
import { transactionShapeProblem } from '../payment/transaction-shape.js'
import { callRpc, isNodeError, rpcUnavailable } from '../solana/rpc-errors.js'
import type { SolanaRpc } from '../solana/rpc-client.js'

/** What a landed payment to the merchant says about its refund: how much came, from which account, when. */
export type PaymentToRefund =
  | {
    kind: 'paid'
    /** Base units the merchant's token accounts received: the most a refund returns. */
    received: bigint
    /** The payer's token account the tokens left: where the refund goes (not the wallet, which may be an exchange's). */
    destination: Address
    /** Unix ms the payment landed (its block time). */
    paidAt: number
    /** Its fee paid by the x402 fee payer: an x402 payment, else a pay-then-prove one. */
    flow: 'x402' | 'proof'
  }
  | { kind: 'denied', reason: 'unknown_payment' | 'not_payer' }

export interface PaymentParties {
  payer: string
  payTo: string
  mint: string
  x402FeePayer: string
}

/**
 * Pure: a landed transaction that moved the payment mint to the merchant, signed by `payer` from
 * a token account `payer` owns, is a payment of `payer`'s; anything else is unknown (failed, not
 * to this merchant, no block time yet) or not the payer's.
 */
export function paymentToRefund (tx: PaymentTransaction, parties: PaymentParties): PaymentToRefund {
  if (tx.meta === null || (tx.meta.err !== null && tx.meta.err !== undefined) || tx.blockTime === null) return { kind: 'denied', reason: 'unknown_payment' }
  const received = amountReceived(tx.meta, parties.payTo, parties.mint)
  if (received <= 0n) return { kind: 'denied', reason: 'unknown_payment' }
  if (!signersOf(tx).includes(parties.payer)) return { kind: 'denied', reason: 'not_payer' }
  // The payer's account of the mint that lost the most: where the tokens came from.
  const before = new Map<number, bigint>()
  for (const balance of tx.meta.preTokenBalances ?? []) {
    if (balance.mint === parties.mint && balance.owner === parties.payer) before.set(balance.accountIndex, BigInt(balance.uiTokenAmount.amount))
  }
  let source: { index: number, spent: bigint } | undefined
  for (const balance of tx.meta.postTokenBalances ?? []) {
    const spent = (before.get(balance.accountIndex) ?? 0n) - BigInt(balance.uiTokenAmount.amount)
    if (balance.mint === parties.mint && balance.owner === parties.payer && spent > 0n && (source === undefined || spent > source.spent)) source = { index: Number(balance.accountIndex), spent }
  }
  const destination = source === undefined ? undefined : tx.transaction.message.accountKeys[source.index]
  if (destination === undefined) return { kind: 'denied', reason: 'not_payer' }
  return {
    kind: 'paid',
    received,
    destination: destination as Address,
    paidAt: Number(tx.blockTime) * 1000,
    flow: tx.transaction.message.accountKeys[0] === parties.x402FeePayer ? 'x402' : 'proof'
  }
}

/** The one getTransaction of a refund request (after its signature checked): null when the node has no such transaction at `commitment`. */
export async function readPayment (rpc: SolanaRpc, signature: string, commitment: 'confirmed' | 'finalized'): Promise<PaymentTransaction | null> {
  return await callRpc(async () => {
    const tx = await rpc.getTransaction(signature as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment }).send().catch((error: unknown) => {
      throw isNodeError(error) ? rpcUnavailable(error) : error
    }) as unknown
    if (tx === null) return null
    // An answer no node would send is the RPC's fault (503), never a reason to move money.
    const problem = transactionShapeProblem(tx, Math.floor(Date.now() / 1000))
    if (problem !== undefined) throw rpcUnavailable(new Error(`getTransaction answer refused at ${problem}`))
    return tx as PaymentTransaction
  })
}
