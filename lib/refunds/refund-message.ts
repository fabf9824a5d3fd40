import { getUtf8Encoder, type Address, type TransactionSigner } from '@solana/kit'
import { isWalletSignatureOver, signWalletMessage } from '../payment/wallet-signature.js'

/**
 * What the paying wallet signs to ask for a refund: the UTF-8 bytes of
 * `token-merchant refund <txHash> <amount> <idempotencyKey>`, like the request-bound proof's
 * message. Only the payer's key makes it, so nobody watching the chain can ask for someone else's.
 */
export function refundMessage (txHash: string, amount: bigint, idempotencyKey: string): Uint8Array {
  return new Uint8Array(getUtf8Encoder().encode(`token-merchant refund ${txHash} ${amount} ${idempotencyKey}`))
}

/** The buyer's side: `payerSignature` of a refund request; undefined when the signer cannot sign messages. */
export async function signRefundRequest (payer: TransactionSigner, txHash: string, amount: bigint, idempotencyKey: string): Promise<string | undefined> {
  return await signWalletMessage(payer, refundMessage(txHash, amount, idempotencyKey))
}

/** The merchant's side, before any RPC or storage: true when `payerSignature` is `payer`'s over this request. */
export async function isPayerSignature (payerSignature: string, payer: Address, txHash: string, amount: bigint, idempotencyKey: string): Promise<boolean> {
  return await isWalletSignatureOver(payerSignature, payer, refundMessage(txHash, amount, idempotencyKey))
}
