import { randomUUID } from 'node:crypto'
import { signBytes, type Address, type KeyPairSigner } from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { PaymentClaims } from '../../db/payment-claims.js'
import { isAppError } from '../errors/app-error.js'
import { statusOf } from '../errors/error-codes.js'
import type { PaymentErrorCode } from '../payment/payment-error.js'
import { PAID_SERVICES, type PaidServiceName } from '../payment/catalog.js'
import { storedResource } from '../payment/stored-resource.js'
import { publishSettlement } from '../metrics/events.js'
import { isRpcUnavailable } from '../solana/rpc-errors.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { codeOfInvalidReason, isBlockhashExpired, isFeePayerUnfunded } from './invalid-reasons.js'
import { createX402Library, RPC_UNAVAILABLE_MARK } from './library.js'
import type { X402Network } from './networks.js'
import { readPaymentPayload } from './payment-payload.js'
import type { X402Rejection } from './rejection.js'
import { awaitConfirmation, chainStatus, fullySigned, sendTransaction } from './settlement.js'
import { checkPaymentTransaction, signatureText, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type CheckedTransfer, type PaymentTerms } from './transaction-rules.js'

export type X402ClaimFlow = 'x402-v1' | 'x402-v2' | 'mcp'

/** A verified x402 payment whose transaction signature this caller holds in the claim store. */
export interface X402Claim {
  /** The transaction signature: the fee payer's signature, computed before anything is sent. */
  signature: string
  claimId: string
  /** The token owner who signed the transfer. */
  payer: string
  amount: bigint
  service: PaidServiceName
  flow: X402ClaimFlow
  x402Version: 1 | 2
  resource: string
  /** Internal: what settle needs. */
  transfer: CheckedTransfer
  feePayerSignature: Uint8Array
  /** Set when a retry found the transaction already on chain (or in flight): settle sends nothing. */
  alreadySent: boolean
}

export type VerifyAndClaimResult =
  | { ok: true, claim: X402Claim }
  | { ok: false, code: PaymentErrorCode, message: string, statusCode: number, retryAfterSeconds?: number }

export type SettleResult =
  | { ok: true, response: SettleResponse }
  | { ok: false, code: PaymentErrorCode, message: string, pending: boolean, retryAfterSeconds?: number }

export interface X402PaymentsOptions {
  rpc: SolanaRpc
  claims: PaymentClaims
  feePayer: KeyPairSigner
  network: X402Network
  payTo: Address
  mint: Address
  commitment: 'confirmed' | 'finalized'
  /** How long the claim of a payment in service is held (handler + settlement). */
  leaseMs: number
  /** How long settle waits for confirmation before answering "pending". */
  settlementTimeoutMs: number
  /** maxTimeoutSeconds advertised in the requirements. */
  maxTimeoutSeconds: number
  /** Resolves once the RPC is known to serve the configured cluster; throws otherwise. */
  ensureNetwork?: () => Promise<void>
}

const IN_PROGRESS_RETRY_SECONDS = 1
const UNFUNDED_RETRY_SECONDS = 30

function refuse (code: PaymentErrorCode, message: string, retryAfterSeconds?: number): VerifyAndClaimResult {
  return { ok: false, code, message, statusCode: statusOf(code), ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) }
}

function fromRejection (rejection: X402Rejection): VerifyAndClaimResult {
  return refuse(rejection.code, rejection.message, rejection.retryAfterSeconds)
}

/**
 * The standard x402 flow, Fastify-free: requirements, verification (the library's checks and our
 * stricter rules), the exactly-once claim in the store seed proofs use, and settlement as the
 * merchant's own facilitator. HTTP and MCP both drive it.
 */
export async function createX402Payments (options: X402PaymentsOptions) {
  const { rpc, claims, feePayer, network, payTo, mint, commitment } = options
  const library = await createX402Library({ rpc, feePayer, network })
  const [[tokenAta], [token2022Ata]] = await Promise.all([
    findAssociatedTokenPda({ owner: payTo, mint, tokenProgram: TOKEN_PROGRAM as Address }),
    findAssociatedTokenPda({ owner: payTo, mint, tokenProgram: TOKEN_2022_PROGRAM as Address })
  ])

  const requirementsV2 = new Map<PaidServiceName, PaymentRequirements>()
  for (const name of Object.keys(PAID_SERVICES) as PaidServiceName[]) {
    requirementsV2.set(name, await library.requirement(PAID_SERVICES[name].price, mint, payTo, options.maxTimeoutSeconds))
  }

  function termsOf (service: PaidServiceName): PaymentTerms {
    return { feePayer: feePayer.address, mint, amount: PAID_SERVICES[service].price, destinations: { token: tokenAta, token2022: token2022Ata } }
  }

  /** The v1 requirement the library's v1 scheme verifies against (the fields it reads). */
  function requirementV1 (service: PaidServiceName, resource: string) {
    const v2 = requirementsV2.get(service) as PaymentRequirements
    return {
      scheme: 'exact',
      network: network.v1,
      maxAmountRequired: v2.amount,
      resource,
      description: PAID_SERVICES[service].description,
      mimeType: 'application/json',
      payTo,
      maxTimeoutSeconds: v2.maxTimeoutSeconds,
      asset: mint,
      extra: { feePayer: feePayer.address }
    }
  }

  async function claimFor (claim: Omit<X402Claim, 'claimId'>, leaseMs: number): Promise<{ claimId: string } | { status: 'pending' | 'redeemed' }> {
    const claimId = randomUUID()
    const result = await claims.claim({
      signature: claim.signature, claimId, service: claim.service, payer: claim.payer, amount: claim.amount, resource: storedResource(claim.resource), leaseMs
    })
    return result.claimed ? { claimId } : { status: result.status }
  }

  function lostClaim (status: 'pending' | 'redeemed'): VerifyAndClaimResult {
    return status === 'redeemed'
      ? refuse('PAYMENT_ALREADY_USED', 'This payment already bought a delivery')
      : refuse('PAYMENT_IN_PROGRESS', 'Another request is being served with this payment', IN_PROGRESS_RETRY_SECONDS)
  }

  /** The library's verdict, with the failures that are not the buyer's turned into 503s. */
  async function libraryVerify (raw: Record<string, unknown>, requirement: unknown): Promise<VerifyAndClaimResult | undefined> {
    let verdict
    try {
      verdict = await library.verify(raw, requirement)
    } catch (error) {
      if (isRpcUnavailable(error)) return refuse('RPC_UNAVAILABLE', 'The Solana RPC node is unavailable; nothing was charged, retry shortly', 2)
      return refuse('X402_VERIFICATION_FAILED', `the x402 library refused the payment: ${(error as Error).message}`)
    }
    if (verdict.isValid) return undefined
    const detail = verdict.invalidMessage
    if (detail?.includes(RPC_UNAVAILABLE_MARK) === true) return refuse('RPC_UNAVAILABLE', 'The Solana RPC node is unavailable; nothing was charged, retry shortly', 2)
    if (isBlockhashExpired(detail)) return refuse('X402_BLOCKHASH_EXPIRED', 'the transaction\'s blockhash is too old to land; build a new transaction')
    if (isFeePayerUnfunded(detail)) return refuse('X402_FEE_PAYER_UNFUNDED', 'the merchant cannot pay the transaction fee right now; nothing moved', UNFUNDED_RETRY_SECONDS)
    const code = codeOfInvalidReason(verdict.invalidReason)
    return refuse(code, `${verdict.invalidReason ?? 'invalid payment'}${detail === undefined ? '' : `: ${detail.slice(0, 300)}`}`)
  }

  async function verifyAndClaim (payload: unknown, service: PaidServiceName, context: { resource: string, flow: X402ClaimFlow }): Promise<VerifyAndClaimResult> {
    const expectedVersion = context.flow === 'x402-v1' ? 1 : context.flow === 'x402-v2' ? 2 : undefined
    const read = readPaymentPayload(payload, expectedVersion)
    if ('rejection' in read) return fromRejection(read.rejection)
    const input = read.input
    if (input.scheme !== 'exact') return refuse('X402_UNSUPPORTED', `scheme ${input.scheme} is not offered; this merchant takes "exact"`)
    const expectedNetwork = input.x402Version === 1 ? network.v1 : network.v2
    if (input.network !== expectedNetwork) return refuse('X402_NETWORK_MISMATCH', `network ${input.network} is not offered; this merchant takes ${expectedNetwork}`)
    const requirement = input.x402Version === 1 ? requirementV1(service, context.resource) : requirementsV2.get(service) as PaymentRequirements
    if (input.x402Version === 2 && !library.matches(requirement as PaymentRequirements, input.raw)) {
      return refuse('X402_REQUIREMENTS_MISMATCH', 'accepted is not the requirement this resource offers (amount, asset, payTo, network, feePayer)')
    }
    const checked = checkPaymentTransaction(input.transaction, termsOf(service))
    if ('rejection' in checked) return fromRejection(checked.rejection)
    const { transfer } = checked

    // The transaction id is the fee payer's signature, deterministic (Ed25519) over the message:
    // known now, before anything is sent, so the claim can be taken on it.
    const feePayerSignature = new Uint8Array(await signBytes(feePayer.keyPair.privateKey, transfer.transaction.messageBytes))
    const base = {
      signature: signatureText(feePayerSignature),
      payer: transfer.payer,
      amount: transfer.amount,
      service,
      flow: context.flow,
      x402Version: input.x402Version,
      resource: context.resource,
      transfer,
      feePayerSignature,
      alreadySent: false
    }

    try {
      await options.ensureNetwork?.()
      const known = await claims.status(base.signature)
      if (known === 'redeemed') return lostClaim('redeemed')
      if (known === 'pending') {
        // In service elsewhere, or left pending by a settlement that was not confirmed in time:
        // whoever takes the claim over asks the chain before anything is sent again.
        const taken = await claimFor(base, options.leaseMs)
        if ('status' in taken) return lostClaim(taken.status)
        const claim: X402Claim = { ...base, claimId: taken.claimId }
        let status
        try {
          status = await chainStatus(rpc, claim.signature, commitment)
        } catch (error) {
          await release(claim)
          throw error
        }
        if (status.state === 'failed') {
          await release(claim)
          return refuse('X402_SETTLEMENT_FAILED', `the transaction failed on chain and moved no tokens: ${status.error}`)
        }
        if (status.state !== 'unseen') return { ok: true, claim: { ...claim, alreadySent: true } }
        const refused = await libraryVerify(input.raw, requirement)
        if (refused !== undefined) {
          await release(claim)
          return refused
        }
        return { ok: true, claim }
      }
      const refused = await libraryVerify(input.raw, requirement)
      if (refused !== undefined) return refused
      const taken = await claimFor(base, options.leaseMs)
      if ('status' in taken) return lostClaim(taken.status)
      return { ok: true, claim: { ...base, claimId: taken.claimId } }
    } catch (error) {
      if (isAppError(error)) return refuse(error.code as PaymentErrorCode, error.message, Number(error.headers?.['retry-after'] ?? 2))
      if (isRpcUnavailable(error)) return refuse('RPC_UNAVAILABLE', 'The Solana RPC node is unavailable; nothing was charged, retry shortly', 2)
      throw error
    }
  }

  async function release (claim: X402Claim): Promise<void> {
    await claims.release(claim.signature, claim.claimId)
  }

  /** Keeps the claim, with a lease as short as the wait we ask for, so the retry can take it over. */
  async function keepPending (claim: X402Claim): Promise<SettleResult> {
    const retryAfterSeconds = Math.max(1, Math.ceil(options.settlementTimeoutMs / 1000))
    await claims.release(claim.signature, claim.claimId)
    const taken = await claimFor(claim, retryAfterSeconds * 1000)
    if ('claimId' in taken) claim.claimId = taken.claimId
    return {
      ok: false,
      code: 'X402_SETTLEMENT_PENDING',
      message: `The payment ${claim.signature} was sent but is not confirmed yet; retry the same payment after ${retryAfterSeconds} s: it is delivered once it landed, never charged twice`,
      pending: true,
      retryAfterSeconds
    }
  }

  function settled (claim: X402Claim): SettleResult {
    return {
      ok: true,
      response: {
        success: true,
        transaction: claim.signature,
        network: (claim.x402Version === 1 ? network.v1 : network.v2) as SettleResponse['network'],
        payer: claim.payer
      }
    }
  }

  async function definitiveFailure (claim: X402Claim, reason: string): Promise<SettleResult> {
    await release(claim)
    if (isFeePayerUnfunded(reason)) {
      return { ok: false, code: 'X402_FEE_PAYER_UNFUNDED', message: 'the merchant cannot pay the transaction fee right now; nothing moved', pending: false, retryAfterSeconds: UNFUNDED_RETRY_SECONDS }
    }
    if (isBlockhashExpired(reason)) {
      return { ok: false, code: 'X402_BLOCKHASH_EXPIRED', message: 'the transaction\'s blockhash expired before it could be sent; nothing moved, pay again', pending: false }
    }
    return { ok: false, code: 'X402_SETTLEMENT_FAILED', message: `the payment could not be settled and moved no tokens: ${reason.slice(0, 300)}`, pending: false }
  }

  /** Co-signs as fee payer, sends, confirms: money moves here only. Redeems the claim on success. */
  async function settle (claim: X402Claim): Promise<SettleResult> {
    const startedAt = performance.now()
    const result = await sendAndConfirm(claim)
    publishSettlement({
      service: claim.service,
      flow: claim.flow,
      outcome: result.ok ? 'settled' : result.pending ? 'pending' : 'failed',
      durationMs: performance.now() - startedAt
    })
    return result
  }

  async function sendAndConfirm (claim: X402Claim): Promise<SettleResult> {
    if (!claim.alreadySent) {
      const wire = fullySigned(claim.transfer.transaction, feePayer.address, claim.feePayerSignature as never)
      const sent = await sendTransaction(rpc, wire, commitment)
      if (sent.sent === false) return await definitiveFailure(claim, sent.refusal)
    }
    const status = await awaitConfirmation(rpc, claim.signature, commitment, options.settlementTimeoutMs)
    if (status.state === 'failed') return await definitiveFailure(claim, `failed on chain: ${status.error}`)
    if (status.state !== 'landed') return await keepPending(claim)
    // The money moved: the delivery is owed whatever the store says now.
    await claims.redeem(claim.signature, claim.claimId)
    return settled(claim)
  }

  function paymentRequired (service: PaidServiceName, resourceUrl: string, error?: string): PaymentRequired {
    return {
      x402Version: 2,
      ...(error === undefined ? {} : { error }),
      resource: { url: resourceUrl, description: PAID_SERVICES[service].description, mimeType: 'application/json' },
      accepts: [requirementsV2.get(service) as PaymentRequirements]
    }
  }

  return { paymentRequired, verifyAndClaim, settle, release, feePayer: feePayer.address as string }
}

export type X402Payments = Awaited<ReturnType<typeof createX402Payments>>
