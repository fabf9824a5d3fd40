import { setTimeout as sleep } from 'node:timers/promises'
import {
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE,
  type Signature,
  type SolanaError
} from '@solana/kit'
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
  const level = entry.confirmationStatus
  const reached = level === 'finalized' || (commitment === 'confirmed' && level === 'confirmed')
  // Final only at the payment commitment, a failure too: an error seen at `processed` is on a fork
  // that may lose (the same transaction can still land on the winning one).
  if (!reached) return { state: 'processing' }
  return entry.err === null ? { state: 'landed' } : { state: 'failed', error: describe(entry.err) }
}

export type SendOutcome =
  | { sent: true }
  /** The node's preflight refused it: it was not forwarded, nothing moved by this send. */
  | { sent: false, reason: PreflightRefusal, detail: string }
  /** Whether the node took it is unknown (timeout, connection lost, a node error). */
  | { sent: 'unknown' }

/** Why a preflight refused, as far as the merchant acts on it; recognised by kit's error codes, never by text. */
export type PreflightRefusal = 'blockhash-expired' | 'fee-payer-unfunded' | 'would-fail'

/** The transaction error kit puts under a preflight failure (`cause`, or `context.cause`). */
function transactionErrorOf (error: SolanaError): unknown {
  return error.cause ?? (error.context as { cause?: unknown }).cause
}

function preflightRefusal (cause: unknown): PreflightRefusal | 'already-processed' {
  if (isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)) return 'already-processed'
  if (isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)) return 'blockhash-expired'
  if (isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE) || isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND)) return 'fee-payer-unfunded'
  return 'would-fail'
}

/**
 * Sends with preflight, so a transaction that cannot land (blockhash expired, fee payer without
 * SOL, payer without tokens) is refused at once with the reason, instead of being dropped silently
 * (and, once on chain, failing at the fee payer's expense).
 * "Already processed" means a send before this one landed it: that is a send.
 */
export async function sendTransaction (rpc: SolanaRpc, wire: string): Promise<SendOutcome> {
  try {
    // Preflight at `processed`: the freshest state, so a transfer of the same tokens that was just
    // processed (not yet confirmed) makes this one fail here, before the fee payer pays for it.
    await rpc.sendTransaction(wire as never, { encoding: 'base64', preflightCommitment: 'processed' }).send()
    return { sent: true }
  } catch (error) {
    // A preflight failure (-32002) is the node's verdict that the transaction cannot land now: it
    // was not forwarded. Any other failure (transport, node error, a malformed answer) leaves the
    // outcome unknown: only the chain can tell.
    if (!isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) return { sent: 'unknown' }
    const cause = transactionErrorOf(error)
    const reason = preflightRefusal(cause)
    if (reason === 'already-processed') return { sent: true }
    return { sent: false, reason, detail: isSolanaError(cause) ? cause.message : 'the transaction would fail' }
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
