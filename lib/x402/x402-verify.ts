import { randomUUID, sign, type KeyObject } from 'node:crypto'
import type { PaymentRequirements } from '@x402/core/types'
import type { PaymentClaims, PaymentIdHolder } from '../../db/contracts/payment-claims.js'
import {
  feePayerUnfunded, paymentAlreadyUsed, paymentIdConflict, paymentInProgress, refusal, refusalOf, settlementFailedOnChain, type Refusal
} from '../contract/refusal.js'
import type { Held } from '../contract/held-payment.js'
import type { Redelivery, RedeliveryOf } from '../contract/redelivery.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import { formatTokenAmount, type PaidServiceName } from '../payment/catalog.js'
import { storedResource } from '../contract/stored-resource.js'
import { rpcUnavailable } from '../solana/rpc-errors.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { base58Text } from '../solana/base58.js'
import { codeOfInvalidReason, isBlockhashExpired, isFeePayerUnfunded } from './invalid-reasons.js'
import { createExactVerification } from './exact-verification.js'
import type { X402Network } from './networks.js'
import { readPaymentPayload } from './payment-payload.js'
import { readPaymentId } from './payment-identifier.js'
import { chainStatus, type ChainStatus } from './settlement.js'
import { checkPayloadTransfer, type CheckedTransfer, type PaymentTerms } from './transaction-rules.js'
import type { createTransferFeeReader } from './transfer-fee.js'
import type { PayerFailureBudget } from './payer-failures.js'
import { keepForRetry, type X402Claim, type X402Request } from './x402-claim.js'

/** What the whole x402 method is built from (x402-payments.ts takes these and more). */
export interface X402MethodSettings {
  rpc: SolanaRpc
  claims: PaymentClaims
  network: X402Network
  commitment: 'confirmed' | 'finalized'
  /** The fee payer's seed as Node's key object (see loadKeypairWithNodeKey): its signature is the transaction id, known before anything is sent. */
  feePayerNodeKey: KeyObject
  /** How long the claim of a payment in service is held (handler + settlement); renewed while it works. */
  leaseMs: number
  /** How long settle waits for confirmation before answering "pending". */
  settlementTimeoutMs: number
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

export interface X402VerifierOptions extends X402MethodSettings {
  /** What a payload must pay for `service` (the terms our rules check it against). */
  termsOf: (service: PaidServiceName, x402Version: 1 | 2) => PaymentTerms
  /** The v2 requirement `service` offers, and the library's match of a payload's `accepted` against it. */
  requirementOf: (service: PaidServiceName) => PaymentRequirements
  matches: (requirement: PaymentRequirements, raw: Record<string, unknown>) => boolean
  transferFee: ReturnType<typeof createTransferFeeReader>
}

/** A failure of the node or of the library, never the buyer's doing: its own code when it has one, else 503 RPC_UNAVAILABLE with the node's Retry-After. */
const notTheBuyers = (error: unknown): Refusal => refusalOf(error) ?? refusalOf(rpcUnavailable(error)) as Refusal
const inProgress = () => paymentInProgress('x402-held')

/**
 * Verification and the claim of an x402 payload: every check of @x402/svm's exact facilitator and
 * our stricter rules, in our own code (the payload decoded once), then the claim in the store the
 * proof headers use. A payload the chain would refuse is never claimed; a claim taken over from a
 * holder that may have sent the transaction asks the chain before anything is sent again.
 */
export function createX402Verifier (options: X402VerifierOptions) {
  const { rpc, claims, network, commitment } = options
  const exactVerification = createExactVerification(rpc)
  // Signed in place with Node's Ed25519 (65 µs) rather than WebCrypto's promise job (180 µs, and a
  // thread-pool round trip): the same deterministic signature.
  const feePayerKey = options.feePayerNodeKey

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
    const arrives = transfer.amount - await options.transferFee.withheld(transfer.amount)
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
    if (result.status === 'refunded') return paymentAlreadyUsed('refunded')
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
      return await keepForRetry(claims, held, options.settlementTimeoutMs)
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
    if (named.status === 'refunded') return paymentAlreadyUsed('refunded')
    if (named.status !== 'redeemed') return inProgress()
    const answer = await claims.keptAnswer(named.signature)
    if (answer === undefined) return paymentIdConflict('This payment-identifier bought a delivery that is past its retention')
    if (answer.requestKey !== requestKey) return paymentIdConflict('This payment-identifier bought another request (other resource or arguments)')
    return await proveSigned() ?? { kind: 'redelivered', answer }
  }

  async function verifyAndClaim (payload: unknown, service: PaidServiceName, context: X402Request): Promise<Held<X402Claim> | Refusal | Redelivery> {
    const read = readPaymentPayload(payload, context.version)
    if (read.kind === 'refused') return read
    const input = read.input
    if (input.scheme !== 'exact') return refusal('X402_UNSUPPORTED', `scheme ${input.scheme} is not offered; this merchant takes "exact"`)
    const expectedNetwork = input.x402Version === 1 ? network.v1 : network.v2
    if (input.network !== expectedNetwork) return refusal('X402_NETWORK_MISMATCH', `network ${input.network} is not offered; this merchant takes ${expectedNetwork}`)
    if (input.x402Version === 2) {
      if (!options.matches(options.requirementOf(service), input.raw)) {
        return refusal('X402_REQUIREMENTS_MISMATCH', 'accepted is not the requirement this resource offers (amount, asset, payTo, network, feePayer)')
      }
      const mismatch = resourceMismatch(input.raw, context.resource)
      if (mismatch !== undefined) return mismatch
    }
    const checked = checkPayloadTransfer(input.transaction, options.termsOf(service, input.x402Version))
    if (checked.kind === 'refused') return checked
    const named = input.x402Version === 2 ? readPaymentId(input.raw) : undefined
    if (named?.kind === 'refused') return named
    return await verifyAndClaimTransfer(checked.transfer, input.x402Version, service, context, named?.id)
  }

  /**
   * A signed transaction that comes without an x402 payload (MPP's pull charge, whose challenge
   * binding replaced the payload's checks): the same rules, verification and claim as a v2
   * payload's. The compute budget may come price first (MPP's client puts it so).
   */
  async function verifyAndClaimTransaction (transaction: string, service: PaidServiceName, context: X402Request): Promise<Held<X402Claim> | Refusal | Redelivery> {
    const checked = checkPayloadTransfer(transaction, { ...options.termsOf(service, 2), computeBudgetInEitherOrder: true })
    if (checked.kind === 'refused') return checked
    return await verifyAndClaimTransfer(checked.transfer, 2, service, context, undefined)
  }

  /** From our static rules on: the payer's failure budget, the signature and simulation, the claim. */
  async function verifyAndClaimTransfer (transfer: CheckedTransfer, x402Version: 1 | 2, service: PaidServiceName, context: X402Request, paymentId: string | undefined): Promise<Held<X402Claim> | Refusal | Redelivery> {
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
      x402Version,
      resource: storedResource(context.resource),
      resourceUrl: context.resource,
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
        const held = await claim(base, request, async () => await verifyExact(transfer, x402Version))
        if (held.kind !== 'held') return held
        if (held.payment.mayHaveBeenSent) return await afterTakeover(held.payment)
        const refused = await verifyExact(transfer, x402Version)
        if (refused === undefined) return held
        await claims.release(held.payment.signature, held.payment.claimId)
        return refused
      }
      // A payload the chain would refuse is never claimed (no store write). Its payment-identifier
      // is looked up all the same: one that names another payment still answers as that payment does.
      const refused = await verifyExact(transfer, x402Version)
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

  return { verifyAndClaim, verifyAndClaimTransaction }
}
