import type { SettleResponse } from '@x402/core/types'
import type { PaymentClaims, SendMarkResult } from '../../db/contracts/payment-claims.js'
import { feePayerUnfunded, paymentInProgress, refusal, settlementFailedOnChain, type Refusal } from '../contract/refusal.js'
import type { SettlePayment, Settled } from '../contract/held-payment.js'
import { publishFeePayerSpend } from '../metrics/events.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { withSignature } from '../solana/wire-transaction.js'
import type { ReceiptSigner } from '../receipts/jws-signer.js'
import type { X402Network } from './networks.js'
import { awaitConfirmation, chainStatus, sendTransaction } from './settlement.js'
import { createSourceWaiters } from './source-waiters.js'
import type { PayerFailureBudget } from './payer-failures.js'
import { keepForRetry, type X402Claim } from './x402-claim.js'

export interface X402SettlerOptions {
  rpc: SolanaRpc
  claims: PaymentClaims
  network: X402Network
  commitment: 'confirmed' | 'finalized'
  leaseMs: number
  /** How long settle waits for confirmation before answering "pending". */
  settlementTimeoutMs: number
  payerFailures: PayerFailureBudget
  /** The signed receipt (offer-receipt extension) a settlement response carries; kept with the answer, so re-deliveries carry the original. */
  receipts?: { signer: ReceiptSigner, resourceUrl: (resource: string) => string }
}

/** What one settlement cost the fee payer, for operators: landed (delivered or failed on chain) or refused before it was sent. */
interface FeePayerSpend { outcome: 'none' | 'delivered' | 'failed_on_chain' | 'refused_at_send' }

const SOURCE_POLL_MS = 50
const inProgress = () => paymentInProgress('x402-held')

/**
 * Settlement as the merchant's own facilitator, a state machine kept in the claim store: claimed
 * (pending) → sent (marked before sendTransaction is called) → landed → redeemed. From the mark on,
 * the claim is never given back by a failure or an abort: only the chain decides — landed
 * (deliver), failed on chain or blockhash expired while still unseen (discard: nothing moved).
 * Before a re-send the chain is asked first, and every refusal is recognised by kit's error codes,
 * never by message text.
 */
export function createX402Settler (options: X402SettlerOptions) {
  const { rpc, claims, network, commitment } = options
  // A lock outlives its holder's settlement (send and confirmation) and no more: a crashed holder's frees itself.
  const sourceLockMs = options.settlementTimeoutMs + 10_000
  const sourceWaiters = createSourceWaiters()

  function settled (claim: X402Claim): Settled {
    const response: SettleResponse = {
      success: true,
      transaction: claim.signature,
      network: (claim.x402Version === 1 ? network.v1 : network.v2) as SettleResponse['network'],
      payer: claim.payer,
      // The receipt names the offer's CAIP-2 network whichever version paid.
      ...(options.receipts === undefined ? {} : { extensions: options.receipts.signer.receiptExtension({ resourceUrl: claim.resourceUrl ?? options.receipts.resourceUrl(claim.resource), payer: claim.payer, network: network.v2, transaction: claim.signature }) })
    }
    return { kind: 'settled', receipt: response as unknown as Record<string, unknown> }
  }

  const pending = async (claim: X402Claim) => await keepForRetry(claims, claim, options.settlementTimeoutMs)

  /** The chain said nothing moved and nothing can: the claim is discarded, the buyer told why. */
  async function nothingMoved (claim: X402Claim, answer: Refusal): Promise<Refusal> {
    await claims.discard(claim.signature, claim.claimId)
    // Failures of the buyer's making count against its wallet; an unfunded fee payer is ours.
    if (answer.code !== 'X402_FEE_PAYER_UNFUNDED') options.payerFailures.record(claim.payer)
    return answer
  }

  /** Sends (or re-sends) the co-signed transaction; a refusal that says nothing moved ends here. */
  async function send (claim: X402Claim, firstSend: boolean): Promise<Refusal | undefined> {
    // The fee payer is the first account: its signature goes in the first slot.
    const wire = withSignature(claim.transfer.transaction, 0, claim.feePayerSignature)
    const sent = await sendTransaction(rpc, wire)
    if (sent.sent !== false) return undefined
    if (sent.reason === 'blockhash-expired') {
      // Expired, and unseen with the whole history searched: it never landed and never will.
      const status = await chainStatus(rpc, claim.signature, commitment).catch(() => undefined)
      if (status?.state !== 'unseen') return undefined
      return await nothingMoved(claim, refusal('X402_BLOCKHASH_EXPIRED', 'the transaction\'s blockhash expired before it landed; nothing moved, pay again'))
    }
    // A re-send refused for another reason may follow a send that landed on a node this one has
    // not caught up with: only the chain's answer may free that claim.
    if (!firstSend) return await pending(claim)
    if (sent.reason === 'fee-payer-unfunded') return await nothingMoved(claim, feePayerUnfunded())
    return await nothingMoved(claim, refusal('X402_SETTLEMENT_FAILED', `the node refused the transaction before sending it (${sent.detail.slice(0, 200)}); your tokens did not move`))
  }

  /**
   * Co-signs as fee payer, sends, confirms: money moves here only. Settled only if this holder
   * redeemed (keeping `answer`). What the fee payer spent is published once known (the core
   * publishes the settlement itself).
   */
  async function settle (claim: X402Claim, answer?: Parameters<SettlePayment>[0]): Promise<Settled | Refusal> {
    const spend: FeePayerSpend = { outcome: 'none' }
    try {
      return await settleHoldingSource(claim, spend, answer)
    } finally {
      if (spend.outcome !== 'none') publishFeePayerSpend({ outcome: spend.outcome, lamports: spend.outcome === 'refused_at_send' ? 0n : claim.transfer.feeLamports })
    }
  }

  /**
   * The sent mark, taken with the hold of the payment's source token account: one settlement in
   * flight per source, across every process sharing the store. The next payload from the same
   * account waits until the first one landed or failed, then its preflight (at processed) sees the
   * real balance and refuses it before the fee payer pays for it. Waits (woken by a release in this
   * process, else polling) while another settlement holds the source, or gives up: nothing sent.
   */
  async function markSentHoldingSource (claim: X402Claim): Promise<SendMarkResult> {
    const deadline = Date.now() + options.settlementTimeoutMs
    const mark = { signature: claim.signature, claimId: claim.claimId, leaseMs: options.leaseMs, source: claim.transfer.source, holdMs: sourceLockMs }
    for (;;) {
      const marked = await claims.markSent(mark)
      if (marked !== 'source-busy' || Date.now() + SOURCE_POLL_MS > deadline) return marked
      await sourceWaiters.wait(claim.transfer.source, SOURCE_POLL_MS)
    }
  }

  async function settleHoldingSource (claim: X402Claim, spend: FeePayerSpend, answer: Parameters<SettlePayment>[0]): Promise<Settled | Refusal> {
    // From the mark on, money may move, and nothing but the chain frees the claim.
    const marked = await markSentHoldingSource(claim)
    if (marked === 'source-busy') {
      // Nothing was sent: the claim is given back, so the same payload's retry is not refused for a whole lease.
      await claims.release(claim.signature, claim.claimId)
      return paymentInProgress('source-busy')
    }
    if (marked === 'not-held') {
      // Taken over (the release is then a no-op) or its MCP call cancelled (released: nothing moved).
      await claims.release(claim.signature, claim.claimId)
      return inProgress()
    }
    let result: Settled | Refusal | undefined
    try {
      result = await sendAndConfirm(claim, spend, answer)
      return result
    } finally {
      // A delivery's redeem ended the hold; every other outcome ends it here.
      if (result === undefined || result.kind === 'refused') await claims.releaseSource(claim.transfer.source, claim.claimId).catch(() => {})
      sourceWaiters.released(claim.transfer.source)
    }
  }

  async function sendAndConfirm (claim: X402Claim, spend: FeePayerSpend, answer: Parameters<SettlePayment>[0]): Promise<Settled | Refusal> {
    if (!claim.onChain) {
      const refused = await send(claim, !claim.mayHaveBeenSent)
      if (refused !== undefined) {
        if (refused.code !== 'X402_SETTLEMENT_PENDING') spend.outcome = 'refused_at_send'
        return refused
      }
    }
    const status = await awaitConfirmation(rpc, claim.signature, commitment, options.settlementTimeoutMs)
    if (status.state === 'failed') {
      spend.outcome = 'failed_on_chain'
      return await nothingMoved(claim, settlementFailedOnChain(status.error))
    }
    if (status.state !== 'landed') return await pending(claim)
    spend.outcome = 'delivered'
    // The money moved. Deliver only if this request still holds the claim: another holder that
    // took it over meanwhile delivers instead. The redeem ends the source's hold too.
    const receipt = settled(claim)
    if (!await claims.redeem({ signature: claim.signature, claimId: claim.claimId, answer: answer === undefined ? undefined : { ...answer, receipt: receipt.receipt }, releasing: claim.transfer.source })) return inProgress()
    return receipt
  }

  return settle
}
