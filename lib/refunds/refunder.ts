import { randomUUID } from 'node:crypto'
import type { Address } from '@solana/kit'
import type { RefundRecord, Refunds } from '../../db/contracts/refunds.js'
import { AppError } from '../errors/app-error.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { awaitConfirmation, chainStatus, sendTransaction, type ChainStatus } from '../x402/settlement.js'
import { paymentToRefund, readPayment } from './refund-payment.js'
import type { BuildRefund } from './refund-transfer.js'

export type DenialReason = 'outside_window' | 'not_payer' | 'already_refunded' | 'amount_exceeds_settled' | 'delivered' | 'unknown_payment'

/** The answer to a refund request, in the shape of x402's refund extension proposal. */
export type RefundAnswer =
  | { status: 'executed', refundTxHash: string, refund: RefundRecord }
  | { status: 'pending', refundTxHash?: string }
  | { status: 'denied', denialReason: DenialReason, refundTxHash?: string }

/** A refund request whose payer signature checked (the route verified it before calling). */
export interface RefundRequest {
  txHash: string
  payer: Address
  amount: bigint
  idempotencyKey: string
  reason: string
}

export interface RefunderOptions {
  rpc: SolanaRpc
  refunds: Refunds
  payTo: Address
  mint: Address
  x402FeePayer: string
  commitment: 'confirmed' | 'finalized'
  windowMs: number
  /** How long a holder keeps a refund it works on: longer than building, sending and confirming it. */
  leaseMs: number
  /** How long a request waits for its refund to land before answering "pending". */
  confirmTimeoutMs: number
  buildRefund: BuildRefund
}

const denied = (denialReason: DenialReason, refundTxHash?: string): RefundAnswer =>
  ({ status: 'denied', denialReason, ...(refundTxHash === undefined ? {} : { refundTxHash }) })
const pending = (refundTxHash?: string): RefundAnswer => ({ status: 'pending', ...(refundTxHash === undefined ? {} : { refundTxHash }) })

/**
 * Refunds of payments never delivered. One getTransaction says what the payment moved and from
 * which account; one atomic store operation (refunds.begin) decides that this request refunds it
 * and that it never buys again. The transfer is built and signed, recorded (signature and bytes)
 * before it is sent, and from then on only the chain decides: landed (executed), failed or
 * expired unseen (nothing moved: a new transaction may be built). A refund whose holder died is
 * taken over once its lease ran out and asked about on chain first, so nothing is sent twice.
 */
export function createRefunder (options: RefunderOptions) {
  const { rpc, refunds, commitment } = options

  async function request (input: RefundRequest): Promise<RefundAnswer> {
    const tx = await readPayment(rpc, input.txHash, commitment)
    if (tx === null) return denied('unknown_payment')
    const payment = paymentToRefund(tx, { payer: input.payer, payTo: options.payTo, mint: options.mint, x402FeePayer: options.x402FeePayer })
    if (payment.kind === 'denied') return denied(payment.reason)
    if (input.amount > payment.received) return denied('amount_exceeds_settled')
    if (input.amount < payment.received) {
      throw new AppError('REFUND_PARTIAL_UNSUPPORTED', `partialRefunds is false: ask for the whole ${payment.received} base units the payment settled`,
        { details: { settled: payment.received.toString() } })
    }
    const holder = randomUUID()
    const begun = await refunds.begin({
      payment: input.txHash,
      idempotencyKey: input.idempotencyKey,
      payer: input.payer,
      destination: payment.destination,
      amount: payment.received,
      reason: input.reason,
      flow: payment.flow,
      holder,
      leaseMs: options.leaseMs,
      paidAt: payment.paidAt,
      windowMs: options.windowMs
    })
    if (begun.begun) return await carryOut(begun.refund)
    if ('denied' in begun) return denied(begun.denied)
    const existing = begun.existing
    // Another idempotency key: this payment has its refund already, whatever its state.
    if (existing.idempotencyKey !== input.idempotencyKey) return denied('already_refunded', existing.refundSignature)
    if (existing.status === 'executed') return executed(existing)
    // The same request again: pick it up if its holder gave up or died, else it is in progress.
    const taken = await refunds.takeOver(existing.payment, holder, options.leaseMs)
    return taken === undefined ? pending(existing.refundSignature) : await carryOut(taken)
  }

  function executed (refund: RefundRecord): RefundAnswer {
    return { status: 'executed', refundTxHash: refund.refundSignature as string, refund }
  }

  /** Drives a refund this holder holds to the chain's verdict, or to "pending" when the chain has not decided in time. */
  async function carryOut (refund: RefundRecord): Promise<RefundAnswer> {
    if (refund.status === 'sent') return await followUp(refund)
    const built = await options.buildRefund(refund.payment, refund.destination as Address, refund.amount)
    // Recorded before it leaves: a crash after this line leaves a refund the chain is asked about.
    if (!await refunds.markSent(refund.payment, refund.holder, built)) return pending()
    const sent = await sendTransaction(rpc, built.wire)
    if (sent.sent === false) {
      // The node's preflight refused it: not forwarded, nothing moved by it. A blockhash that
      // expired is believed only once the chain, searched whole, has not seen the transaction.
      if (sent.reason !== 'blockhash-expired' || (await statusOrUndefined(built.signature))?.state === 'unseen') {
        await refunds.decide(refund.payment, built.signature, 'failed')
      }
      return pending(built.signature)
    }
    return await confirm({ ...refund, status: 'sent', refundSignature: built.signature, wire: built.wire, lastValidBlockHeight: built.lastValidBlockHeight })
  }

  async function statusOrUndefined (signature: string): Promise<ChainStatus | undefined> {
    return await chainStatus(rpc, signature, commitment).catch(() => undefined)
  }

  /**
   * A sent refund taken over: the chain first. Landed or failed: decided. Unseen: its recorded
   * bytes are sent again (the same transaction, so it lands at most once) while its blockhash may
   * still land; once the blockhash expired, unseen means never, and a new one is built.
   */
  async function followUp (refund: RefundRecord): Promise<RefundAnswer> {
    const signature = refund.refundSignature as string
    const status = await statusOrUndefined(signature)
    if (status === undefined) return pending(signature)
    if (status.state === 'landed' || status.state === 'failed') return await decided(refund, status)
    if (status.state === 'unseen') {
      const height = await rpc.getBlockHeight({ commitment: 'confirmed' }).send().catch(() => undefined)
      if (height !== undefined && height > (refund.lastValidBlockHeight ?? 0n) && (await statusOrUndefined(signature))?.state === 'unseen') {
        await refunds.decide(refund.payment, signature, 'failed')
        const again = await refunds.takeOver(refund.payment, refund.holder, options.leaseMs)
        return again === undefined ? pending() : await carryOut(again)
      }
      await sendTransaction(rpc, refund.wire as string)
    }
    return await confirm(refund)
  }

  async function confirm (refund: RefundRecord): Promise<RefundAnswer> {
    const signature = refund.refundSignature as string
    const status = await awaitConfirmation(rpc, signature, commitment, options.confirmTimeoutMs).catch(() => undefined)
    if (status === undefined || (status.state !== 'landed' && status.state !== 'failed')) return pending(signature)
    return await decided(refund, status)
  }

  async function decided (refund: RefundRecord, status: { state: 'landed' } | { state: 'failed' }): Promise<RefundAnswer> {
    const signature = refund.refundSignature as string
    await refunds.decide(refund.payment, signature, status.state === 'landed' ? 'executed' : 'failed')
    const now = await refunds.get(refund.payment)
    if (now?.status === 'executed') return executed(now)
    // Failed on chain: nothing moved; the reconciler builds a new one.
    return pending(signature)
  }

  /**
   * The reconciler: every refund whose holder gave up or died (lease over) or whose transaction
   * failed is taken over, one holder at a time across instances, and carried out. Returns how
   * many it took.
   */
  async function reconcile (limit = 20): Promise<number> {
    let taken = 0
    for (const refund of await refunds.unsettled(limit)) {
      const mine = await refunds.takeOver(refund.payment, randomUUID(), options.leaseMs)
      if (mine === undefined) continue
      taken++
      await carryOut(mine)
    }
    return taken
  }

  return { request, reconcile }
}

export type Refunder = ReturnType<typeof createRefunder>
