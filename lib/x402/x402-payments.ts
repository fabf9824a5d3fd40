import { randomUUID, sign, type KeyObject } from 'node:crypto'
import type { Address, KeyPairSigner } from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { PaymentClaims, PaymentIdHolder, SendMarkResult } from '../../db/contracts/payment-claims.js'
import {
  feePayerUnfunded, paymentAlreadyUsed, paymentIdConflict, paymentInProgress, refusal, refusalOf, settlementFailedOnChain, settlementPending, type Refusal
} from '../contract/refusal.js'
import type { Held, HeldPayment, SettlePayment, Settled } from '../contract/held-payment.js'
import type { Redelivery, RedeliveryOf } from '../contract/redelivery.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import { formatTokenAmount, type PaidServiceName } from '../payment/catalog.js'
import { storedResource } from '../contract/stored-resource.js'
import { publishFeePayerSpend } from '../metrics/events.js'
import { rpcUnavailable } from '../solana/rpc-errors.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { codeOfInvalidReason, isBlockhashExpired, isFeePayerUnfunded } from './invalid-reasons.js'
import { createX402Library } from './library.js'
import { createExactVerification } from './exact-verification.js'
import type { X402Network } from './networks.js'
import { readPaymentPayload } from './payment-payload.js'
import { paymentIdentifierExtensions, readPaymentId } from './payment-identifier.js'
import { base58Text } from '../solana/base58.js'
import { withSignature } from '../solana/wire-transaction.js'
import { awaitConfirmation, chainStatus, sendTransaction, type ChainStatus } from './settlement.js'
import { checkPayloadTransfer, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type CheckedTransfer, type PaymentTerms } from './transaction-rules.js'
import { createSourceWaiters } from './source-waiters.js'
import { createTransferFeeReader } from './transfer-fee.js'
import type { PayerFailureBudget } from './payer-failures.js'

export type X402ClaimFlow = 'x402-v1' | 'x402-v2' | 'mcp' | 'a2a'

/** A verified x402 payment whose transaction signature this caller holds in the claim store. */
export interface X402Claim extends HeldPayment {
  flow: X402ClaimFlow
  x402Version: 1 | 2
  /** Internal: what settle needs. */
  transfer: CheckedTransfer
  feePayerSignature: Uint8Array
  /** The chain already has the transaction (a retry after a lost answer): settle sends nothing. */
  onChain: boolean
  /** Taken over from a holder that marked it sent: a refused re-send is not proof that nothing moved. */
  mayHaveBeenSent: boolean
}

export interface X402PaymentsOptions {
  rpc: SolanaRpc
  claims: PaymentClaims
  feePayer: KeyPairSigner
  /** The fee payer's seed as Node's key object (see loadKeypairWithNodeKey). */
  feePayerNodeKey: KeyObject
  network: X402Network
  payTo: Address
  mint: Address
  commitment: 'confirmed' | 'finalized'
  /** How long the claim of a payment in service is held (handler + settlement); renewed while it works. */
  leaseMs: number
  /** How long settle waits for confirmation before answering "pending". */
  settlementTimeoutMs: number
  /** maxTimeoutSeconds advertised in the requirements. */
  maxTimeoutSeconds: number
  /** The most priority fee the fee payer pays for one payment (X402_MAX_PRIORITY_FEE_LAMPORTS). */
  maxPriorityFeeLamports: bigint
  /** Failed settlements per paying wallet (X402_PAYER_FAILURE_LIMIT). */
  payerFailures: PayerFailureBudget
  /** Resolves once the RPC is known to serve the configured cluster; throws otherwise. */
  ensureNetwork?: () => Promise<void>
  /** While payTo's token account does not exist yet: why, and what it waits for (a simulation then fails through no fault of the buyer's). */
  payToAccountMissing?: () => string | undefined
  /** A spent payment's kept answer, when this request may have it again. */
  redeliveryOf: RedeliveryOf
  /** The products sold: their prices and descriptions. */
  catalogue: Catalogue
}

/** What the door knows of the request a payload pays for. */
export interface X402Request {
  /** The URL (or tool URL) being bought: a v2 payload must name it. */
  resource: string
  flow: X402ClaimFlow
  /** Method, resource and arguments (lib/contract/request-key.ts). */
  requestKey: string
  /** MCP: names the call, so its cancel notice can find the claim. */
  callerRef?: string
}

/** What one settlement cost the fee payer, for operators: landed (delivered or failed on chain) or refused before it was sent. */
interface FeePayerSpend { outcome: 'none' | 'delivered' | 'failed_on_chain' | 'refused_at_send' }

const SOURCE_POLL_MS = 50

/** A failure of the node or of the library, never the buyer's doing: its own code when it has one, else 503 RPC_UNAVAILABLE with the node's Retry-After. */
const notTheBuyers = (error: unknown): Refusal => refusalOf(error) ?? refusalOf(rpcUnavailable(error)) as Refusal
const inProgress = () => paymentInProgress('x402-held')

/**
 * The standard x402 flow, Fastify-free: requirements, verification (every check of the library's
 * exact facilitator and our stricter rules, in our own code), the claim in the store the proof
 * headers use, and settlement as the merchant's own facilitator. HTTP (v1, v2) and MCP both drive it through the delivery core.
 *
 * Settlement is a state machine kept in the claim store: claimed (pending) → sent (marked before
 * sendTransaction is called) → landed → redeemed. From the mark on, the claim is never given back
 * by a failure or an abort: only the chain decides — landed (deliver), failed on chain or
 * blockhash expired while still unseen (discard: nothing moved). Before a re-send the chain is
 * asked first, and every refusal is recognised by kit's error codes, never by message text.
 */
export async function createX402Payments (options: X402PaymentsOptions) {
  const { rpc, claims, feePayer, network, payTo, mint, commitment } = options
  // The library builds the requirements and matches payloads; verification is ours (exact-verification.ts).
  const library = await createX402Library({ rpc, feePayer, network })
  const exactVerification = createExactVerification(rpc)
  // Signed in place with Node's Ed25519 (65 µs) rather than WebCrypto's promise job (180 µs, and a
  // thread-pool round trip): the same deterministic signature.
  const feePayerKey = options.feePayerNodeKey
  const transferFee = createTransferFeeReader(rpc, mint)
  // A lock outlives its holder's settlement (send and confirmation) and no more: a crashed holder's frees itself.
  const sourceLockMs = options.settlementTimeoutMs + 10_000
  const sourceWaiters = createSourceWaiters()
  const [[tokenAta], [token2022Ata]] = await Promise.all([
    findAssociatedTokenPda({ owner: payTo, mint, tokenProgram: TOKEN_PROGRAM as Address }),
    findAssociatedTokenPda({ owner: payTo, mint, tokenProgram: TOKEN_2022_PROGRAM as Address })
  ])

  const requirementsV2 = new Map<PaidServiceName, PaymentRequirements>()
  for (const product of options.catalogue.products) {
    requirementsV2.set(product.name, await library.requirement(product.price, mint, payTo, options.maxTimeoutSeconds))
  }

  function termsOf (service: PaidServiceName, x402Version: 1 | 2): PaymentTerms {
    return { feePayer: feePayer.address, mint, amount: options.catalogue.product(service).price, destinations: { token: tokenAta, token2022: token2022Ata }, maxPriorityFeeLamports: options.maxPriorityFeeLamports, x402Version }
  }

  /**
   * The payer's signature and the simulation (exact-verification.ts), after our static rules:
   * @x402/svm's verdicts, reached without it. A node that fails us is never the buyer's doing.
   */
  async function verifyExact (transfer: CheckedTransfer, x402Version: 1 | 2): Promise<Refusal | undefined> {
    let verdict
    try {
      verdict = await exactVerification.verify(transfer, x402Version)
    } catch (error) {
      return notTheBuyers(error)
    }
    if (verdict.isValid) return undefined
    const detail = verdict.invalidMessage
    if (isBlockhashExpired(detail)) return refusal('X402_BLOCKHASH_EXPIRED', 'the transaction\'s blockhash is too old to land; build a new transaction')
    if (isFeePayerUnfunded(detail)) return feePayerUnfunded()
    const code = codeOfInvalidReason(verdict.invalidReason)
    const accountMissing = code === 'X402_SIMULATION_FAILED' ? options.payToAccountMissing?.() : undefined
    if (accountMissing !== undefined) return refusal(code, `${accountMissing}; nothing moved`)
    // The reason is the library's stable identifier; the node's free-text detail is not passed on.
    return refusal(code, `the payment was refused (${verdict.invalidReason}); nothing moved`)
  }

  /** v2 binds a payload to the resource it was offered for; v1 payloads carry none (they cannot be bound). */
  function resourceMismatch (raw: Record<string, unknown>, resource: string): Refusal | undefined {
    const offered = (raw.resource as { url?: unknown } | undefined)?.url
    if (offered === resource) return undefined
    return refusal('X402_RESOURCE_MISMATCH', `this payment was made for ${typeof offered === 'string' ? JSON.stringify(offered.slice(0, 200)) : 'no resource'}, not ${JSON.stringify(resource)}; pay the 402 of this resource. Nothing moved`)
  }

  /** A Token-2022 payment mint with a transfer fee delivers less than the instruction says: judged by what arrives. */
  async function arrivalShort (transfer: CheckedTransfer, price: bigint): Promise<Refusal | undefined> {
    const arrives = transfer.amount - await transferFee.withheld(transfer.amount)
    if (arrives >= price) return undefined
    return refusal('X402_AMOUNT_MISMATCH', `the payment mint withholds a transfer fee: ${formatTokenAmount(arrives)} would arrive, ${formatTokenAmount(price)} is the price; nothing moved`)
  }

  /**
   * Claims the payment; with a payment-identifier that already names another payment of the payer,
   * the claim takes nothing and the answer is that payment's (answerUnderPaymentId).
   */
  async function claim (base: Omit<X402Claim, 'claimId' | 'mayHaveBeenSent'>, request: { paymentId?: string, callerRef?: string }, proveSigned: () => Promise<Refusal | undefined>): Promise<Held<X402Claim> | Refusal | Redelivery> {
    const claimId = randomUUID()
    const { signature, service, payer, amount, resource } = base
    const result = await claims.claim({ signature, claimId, flow: 'x402', service, payer, amount, resource, leaseMs: options.leaseMs, ...request })
    if (result.claimed) return { kind: 'held', payment: { ...base, claimId, onChain: false, mayHaveBeenSent: result.sent } }
    if ('paymentIdHolder' in result) return await answerUnderPaymentId(result.paymentIdHolder, base.requestKey, proveSigned)
    if (result.status === 'redeemed') return paymentAlreadyUsed('x402')
    if (result.flow !== 'x402') return paymentAlreadyUsed('claimed-as-proof')
    return inProgress()
  }

  /**
   * A claim taken over from an earlier holder that may have sent the transaction: the chain says
   * where it stands before anything is sent again.
   */
  async function afterTakeover (held: X402Claim): Promise<Held<X402Claim> | Refusal> {
    let status: ChainStatus
    try {
      status = await chainStatus(rpc, held.signature, commitment)
    } catch {
      // The node cannot say: the payment may have moved, so the answer is pending, never "nothing charged".
      return await pending(held)
    }
    if (status.state === 'landed' || status.state === 'processing') return { kind: 'held', payment: { ...held, onChain: true } }
    if (status.state === 'failed') {
      await claims.discard(held.signature, held.claimId)
      return settlementFailedOnChain(status.error)
    }
    // Unseen: settle re-sends it; its preflight says whether it can still land.
    return { kind: 'held', payment: held }
  }

  /**
   * A payer's payment-identifier already names another payment: the same request is answered
   * from that one (once this payload proves the payer signed it; it is never sent), another
   * request is a conflict, and one still in service is in progress.
   */
  async function answerUnderPaymentId (named: PaymentIdHolder, requestKey: string, proveSigned: () => Promise<Refusal | undefined>): Promise<Redelivery | Refusal> {
    if (named.status !== 'redeemed') return inProgress()
    const answer = await claims.keptAnswer(named.signature)
    if (answer === undefined) return paymentIdConflict('This payment-identifier bought a delivery that is past its retention')
    if (answer.requestKey !== requestKey) return paymentIdConflict('This payment-identifier bought another request (other resource or arguments)')
    return await proveSigned() ?? { kind: 'redelivered', answer }
  }

  async function verifyAndClaim (payload: unknown, service: PaidServiceName, context: X402Request): Promise<Held<X402Claim> | Refusal | Redelivery> {
    // A2A's transport is x402 v2 only: a v1 payload names no resource, so it could not be bound to the skill.
    const expectedVersion = context.flow === 'x402-v1' ? 1 : context.flow === 'x402-v2' || context.flow === 'a2a' ? 2 : undefined
    const read = readPaymentPayload(payload, expectedVersion)
    if (read.kind === 'refused') return read
    const input = read.input
    if (input.scheme !== 'exact') return refusal('X402_UNSUPPORTED', `scheme ${input.scheme} is not offered; this merchant takes "exact"`)
    const expectedNetwork = input.x402Version === 1 ? network.v1 : network.v2
    if (input.network !== expectedNetwork) return refusal('X402_NETWORK_MISMATCH', `network ${input.network} is not offered; this merchant takes ${expectedNetwork}`)
    if (input.x402Version === 2) {
      if (!library.matches(requirementsV2.get(service) as PaymentRequirements, input.raw)) {
        return refusal('X402_REQUIREMENTS_MISMATCH', 'accepted is not the requirement this resource offers (amount, asset, payTo, network, feePayer)')
      }
      const mismatch = resourceMismatch(input.raw, context.resource)
      if (mismatch !== undefined) return mismatch
    }
    const checked = checkPayloadTransfer(input.transaction, termsOf(service, input.x402Version))
    if (checked.kind === 'refused') return checked
    const { transfer } = checked
    const named = input.x402Version === 2 ? readPaymentId(input.raw) : undefined
    if (named?.kind === 'refused') return named
    const paymentId = named?.id
    // A wallet whose payments keep failing at settlement costs the fee payer: refused before any RPC call.
    const blockedFor = options.payerFailures.blockedFor(transfer.payer)
    if (blockedFor !== undefined) {
      return refusal('PAYER_BLOCKED', `payments from ${transfer.payer} failed at settlement too often; retry in ${blockedFor} s with a wallet that holds the price`, { retryAfterSeconds: blockedFor })
    }

    // The transaction id is the fee payer's signature, deterministic (Ed25519) over the message:
    // known now, before anything is sent, so the claim can be taken on it.
    const feePayerSignature = new Uint8Array(sign(null, transfer.transaction.messageBytes, feePayerKey))
    const base = {
      signature: base58Text(feePayerSignature),
      payer: transfer.payer,
      amount: transfer.amount,
      service,
      flow: context.flow,
      x402Version: input.x402Version,
      resource: storedResource(context.resource),
      requestKey: context.requestKey,
      transfer,
      feePayerSignature,
      onChain: false
    }

    try {
      await options.ensureNetwork?.()
      const short = await arrivalShort(transfer, options.catalogue.product(service).price)
      if (short !== undefined) return short
      const known = await claims.status(base.signature)
      if (known?.status === 'redeemed') {
        return await options.redeliveryOf({ signature: base.signature, requestKey: context.requestKey, paymentId }) ??
          paymentAlreadyUsed('x402')
      }
      const request = { paymentId, callerRef: context.callerRef }
      if (known !== undefined) {
        // Held elsewhere, or left by a holder that gave up (a pending answer, a failed handler):
        // whoever takes it over asks the chain before anything is sent again.
        const held = await claim(base, request, async () => await verifyExact(transfer, input.x402Version))
        if (held.kind !== 'held') return held
        if (held.payment.mayHaveBeenSent) return await afterTakeover(held.payment)
        const refused = await verifyExact(transfer, input.x402Version)
        if (refused === undefined) return held
        await claims.release(held.payment.signature, held.payment.claimId)
        return refused
      }
      // A payload the chain would refuse is never claimed (no store write). Its payment-identifier
      // is looked up all the same: one that names another payment still answers as that payment does.
      const refused = await verifyExact(transfer, input.x402Version)
      if (refused !== undefined) {
        const named = paymentId === undefined ? undefined : await claims.claimOfPaymentId(base.payer, paymentId)
        if (named === undefined || named.signature === base.signature) return refused
        return await answerUnderPaymentId(named, context.requestKey, async () => refused)
      }
      // Verified: the claim looks the payment-identifier up itself, in the same store operation.
      return await claim(base, request, async () => undefined)
    } catch (error) {
      return notTheBuyers(error)
    }
  }

  function settled (claim: X402Claim): Settled {
    const response: SettleResponse = {
      success: true,
      transaction: claim.signature,
      network: (claim.x402Version === 1 ? network.v1 : network.v2) as SettleResponse['network'],
      payer: claim.payer
    }
    return { kind: 'settled', receipt: response as unknown as Record<string, unknown> }
  }

  /** The transaction may be on its way: the claim is kept (its lease ended) for the retry, which asks the chain. */
  async function pending (claim: X402Claim): Promise<Refusal> {
    await claims.release(claim.signature, claim.claimId)
    return settlementPending(claim.signature, Math.max(1, Math.ceil(options.settlementTimeoutMs / 1000)))
  }

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
    if (!await claims.redeem(claim.signature, claim.claimId, undefined, answer === undefined ? undefined : { ...answer, receipt: receipt.receipt }, claim.transfer.source)) return inProgress()
    return receipt
  }

  function paymentRequired (service: PaidServiceName, resourceUrl: string, error?: string): PaymentRequired {
    return {
      x402Version: 2,
      ...(error === undefined ? {} : { error }),
      resource: { url: resourceUrl, description: options.catalogue.product(service).description, mimeType: 'application/json' },
      accepts: [requirementsV2.get(service) as PaymentRequirements],
      extensions: paymentIdentifierExtensions()
    }
  }

  return { paymentRequired, verifyAndClaim, settle, feePayer: feePayer.address as string }
}

export type X402Payments = Awaited<ReturnType<typeof createX402Payments>>
