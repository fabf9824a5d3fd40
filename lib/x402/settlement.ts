import { setTimeout as sleep } from 'node:timers/promises'
import { getBase64EncodedWireTransaction, isSolanaError, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, type Signature, type SignatureBytes, type Transaction } from '@solana/kit'
import { isRpcUnavailable } from '../solana/rpc-errors.js'
import type { SolanaRpc } from '../solana/rpc-client.js'

const POLL_MS = 200

/** Where a sent transaction stands, as far as the chain says. */
export type ChainStatus =
  | { state: 'landed' }
  | { state: 'failed', error: string }
  | { state: 'unseen' }
  | { state: 'processing' }

function describe (value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => typeof v === 'bigint' ? v.toString() : v)
}

/** One getSignatureStatuses look, judged at the payment commitment. Throws what the RPC throws. */
export async function chainStatus (rpc: SolanaRpc, signature: string, commitment: 'confirmed' | 'finalized'): Promise<ChainStatus> {
  const { value } = await rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send()
  const entry = value[0]
  if (entry === null || entry === undefined) return { state: 'unseen' }
  if (entry.err !== null) return { state: 'failed', error: describe(entry.err) }
  const level = entry.confirmationStatus
  const reached = level === 'finalized' || (commitment === 'confirmed' && level === 'confirmed')
  return reached ? { state: 'landed' } : { state: 'processing' }
}

/** The payer-signed transaction with the fee payer's signature added: ready to send. */
export function fullySigned (transaction: Transaction, feePayer: string, signature: SignatureBytes): string {
  return getBase64EncodedWireTransaction({ ...transaction, signatures: { ...transaction.signatures, [feePayer]: signature } })
}

export type SendOutcome =
  | { sent: true }
  /** The node refused it before it could land: nothing moved. */
  | { sent: false, refusal: string }
  /** Whether the node took it is unknown (timeout, connection lost). */
  | { sent: 'unknown' }

/**
 * Sends with preflight, so a transaction that cannot land (blockhash expired, fee payer without
 * SOL, payer without tokens) is refused at once with the reason, instead of being dropped silently.
 */
export async function sendTransaction (rpc: SolanaRpc, wire: string, commitment: 'confirmed' | 'finalized'): Promise<SendOutcome> {
  try {
    await rpc.sendTransaction(wire as never, { encoding: 'base64', preflightCommitment: commitment }).send()
    return { sent: true }
  } catch (error) {
    // A preflight failure (-32002) is the node's verdict that the transaction cannot land: it was
    // not forwarded, so nothing moved. Only other server errors leave the outcome unknown.
    const preflightRefused = isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)
    if (!preflightRefused && isRpcUnavailable(error)) return { sent: 'unknown' }
    const message = isSolanaError(error) ? `${error.message} ${describe(error.context)}` : String(error)
    // Sent before (a retry after a lost answer): the chain has it, which is what we wanted.
    if (/AlreadyProcessed|already been processed/i.test(message)) return { sent: true }
    return { sent: false, refusal: message }
  }
}

/** Polls until the transaction reached the commitment, failed, or the time ran out. */
export async function awaitConfirmation (rpc: SolanaRpc, signature: string, commitment: 'confirmed' | 'finalized', timeoutMs: number): Promise<ChainStatus> {
  const deadline = Date.now() + timeoutMs
  let last: ChainStatus = { state: 'unseen' }
  for (;;) {
    try {
      last = await chainStatus(rpc, signature, commitment)
      if (last.state === 'landed' || last.state === 'failed') return last
    } catch (error) {
      // A node that does not answer a status look says nothing about the transaction.
      if (!isRpcUnavailable(error)) throw error
    }
    if (Date.now() + POLL_MS > deadline) return last
    await sleep(POLL_MS)
  }
}
