import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Address, Signature } from '@solana/kit'
import type { PaymentClaims } from '../../db/contracts/payment-claims.js'
import { callRpc, isNodeError, rpcUnavailable } from '../solana/rpc-errors.js'
import { transactionShapeProblem } from './transaction-shape.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { formatTokenAmount, type PaidServiceName, type PaidService } from './catalog.js'
import { paymentAlreadyUsed, paymentInProgress, refusal, x402PaymentAsProof, type Refusal } from '../contract/refusal.js'
import type { Held, HeldPayment, SettlePayment, Settled } from '../contract/held-payment.js'
import type { Redelivery, RedeliveryOf } from '../contract/redelivery.js'
import type { PaymentProof } from './proof-headers.js'
import { readOwnerMultisig, type OwnerMultisig } from './owner-multisig.js'
import { checkLandedPayment, ownersToReadAsMultisig, payerOfLanded, type PaymentTransaction } from './verify-transaction.js'
import type { ReceiptSigner } from '../receipts/jws-signer.js'

export interface VerifierOptions {
  rpc: SolanaRpc
  claims: PaymentClaims
  /** Resolves once the RPC is known to serve the configured cluster; throws otherwise. */
  ensureNetwork: () => Promise<void>
  payTo: Address
  mint: Address
  commitment: 'confirmed' | 'finalized'
  maxAgeSeconds: number
  leaseMs: number
  notFoundWaitMs: number
  /** The x402 fee payer: a transaction it paid the fee of is an x402 payment, never a proof. */
  x402FeePayer: string
  /** The network named in the receipt (x402 spelling). */
  receiptNetwork: string
  /** Signs the proof's receipt (offer-receipt extension, the offers' CAIP-2 network); kept with the answer, so re-deliveries carry the original. */
  receipts?: { signer: ReceiptSigner, resourceUrl: (resource: string) => string, network: string }
  /** A spent payment's kept answer, when this request may have it again. */
  redeliveryOf: RedeliveryOf
}

/** What a proof request asks besides the payment: what it buys, and whether it proved it is the payer's (a wallet signature). */
export interface ProofRequest {
  resource: string
  requestKey: string
  buyerProven: boolean
  /** The merchant must receive exactly the price, not at least it (MPP's charge is exact). */
  exactAmount?: boolean
}

/** A proof as a way to pay presents it: the wallet may be left for the transaction to say (MPP's push charge names only the signature). */
export type ProofToVerify = Omit<PaymentProof, 'wallet'> & { wallet?: PaymentProof['wallet'] }

const NOT_FOUND_POLL_MS = 400

/**
 * Turns a proof into a held payment, or a refusal saying what is wrong. One getTransaction
 * decides the payment; one atomic store operation decides who may use it. A transaction the x402
 * fee payer paid for belongs to the x402 flow: it is never delivered through the proof headers.
 */
export function createPaymentVerifier (options: VerifierOptions) {
  const { rpc, claims } = options

  async function fetchTransaction (signature: Signature): Promise<PaymentTransaction | null> {
    const deadline = Date.now() + options.notFoundWaitMs
    for (;;) {
      const tx = await rpc.getTransaction(signature, {
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
        commitment: options.commitment
      }).send() as unknown
      if (tx !== null) {
        // An answer no node would send is the RPC's fault (503, proof untouched), never a payment.
        const problem = transactionShapeProblem(tx, Math.floor(Date.now() / 1000))
        if (problem !== undefined) throw rpcUnavailable(new Error(`getTransaction answer refused at ${problem}`))
        return tx as PaymentTransaction
      }
      if (Date.now() + NOT_FOUND_POLL_MS > deadline) return null
      await sleep(NOT_FOUND_POLL_MS)
    }
  }

  const alreadyUsed = () => paymentAlreadyUsed('proof')
  const x402Payment = x402PaymentAsProof

  // Concurrent look-ups of one signature (a burst of replays, say) share one RPC call.
  const lookups = new Map<Signature, Promise<PaymentTransaction | null>>()
  async function lookUp (signature: Signature): Promise<PaymentTransaction | null> {
    let lookup = lookups.get(signature)
    if (lookup === undefined) {
      lookup = fetchTransaction(signature).finally(() => lookups.delete(signature))
      lookups.set(signature, lookup)
    }
    return await lookup
  }

  /** Tokens paid from a multisig-owned account: the owners that are multisigs, read from the chain (none to read in the common case). */
  async function multisigOwners (owners: string[]): Promise<Map<string, OwnerMultisig>> {
    const multisigs = new Map<string, OwnerMultisig>()
    for (const owner of owners) {
      const multisig = await callRpc(async () => await readOwnerMultisig(rpc, owner as Address, options.commitment).catch((error: unknown) => {
        throw isNodeError(error) ? rpcUnavailable(error) : error
      }))
      if (multisig !== undefined) multisigs.set(owner, multisig)
    }
    return multisigs
  }

  return {
    async verifyAndClaim (proof: ProofToVerify, serviceName: PaidServiceName, service: PaidService, request: ProofRequest): Promise<Held | Refusal | Redelivery> {
      const { resource, requestKey } = request
      // A spent proof, or one held by the x402 flow, is refused without asking the chain; a spent
      // one whose answer did not reach its payer gets that answer again.
      const known = await claims.status(proof.signature)
      if (known?.status === 'redeemed' && known.flow === 'proof') {
        return await options.redeliveryOf({ signature: proof.signature, requestKey, payer: proof.wallet, buyerProven: request.buyerProven }) ?? alreadyUsed()
      }
      if (known?.status === 'redeemed') return alreadyUsed()
      if (known?.status === 'refunded') return paymentAlreadyUsed('refunded')
      if (known?.flow === 'x402') return x402Payment()

      const tx = await callRpc(async () => {
        await options.ensureNetwork()
        return await lookUp(proof.signature).catch((error: unknown) => {
          // The signature was checked well-formed: a JSON-RPC error about it is the node's failing.
          throw isNodeError(error) ? rpcUnavailable(error) : error
        })
      })
      if (tx === null) {
        return refusal('PAYMENT_NOT_FOUND', `No ${options.commitment} transaction with this signature; if it was just sent, retry in a few seconds`)
      }
      if (tx.transaction.message.accountKeys[0] === options.x402FeePayer) return x402Payment()
      const wallet = proof.wallet ?? payerOfLanded(tx, options.mint)
      if (wallet === undefined) return refusal('PAYER_MISMATCH', 'no signer of the transaction spent the payment token: nobody paid')

      const expected = {
        payer: wallet,
        payTo: options.payTo,
        mint: options.mint,
        price: service.price,
        maxAgeSeconds: options.maxAgeSeconds,
        nowSeconds: Math.floor(Date.now() / 1000),
        walletSignatureProven: request.buyerProven
      }
      const check = checkLandedPayment(tx, { ...expected, multisigs: await multisigOwners(ownersToReadAsMultisig(tx, expected)) })
      if (check.kind === 'refused') return check
      if (request.exactAmount === true && check.paid !== service.price) {
        return refusal('AMOUNT_NOT_EXACT', `The transaction paid ${formatTokenAmount(check.paid)} to the merchant; this charge is exactly ${formatTokenAmount(service.price)}`,
          { details: { paid: check.paid.toString(), required: service.price.toString() } })
      }

      const claimId = randomUUID()
      const claim = await claims.claim({
        signature: proof.signature,
        claimId,
        flow: 'proof',
        service: serviceName,
        payer: wallet,
        amount: check.paid,
        resource,
        leaseMs: options.leaseMs
      })
      if (!claim.claimed) {
        // (A proof's claim names no payment-identifier: only its signature can refuse it.)
        if ('status' in claim && claim.status === 'redeemed') return alreadyUsed()
        if ('status' in claim && claim.status === 'refunded') return paymentAlreadyUsed('refunded')
        if ('flow' in claim && claim.flow === 'x402') return x402Payment()
        return paymentInProgress('proof-held')
      }
      return { kind: 'held', payment: { signature: proof.signature, payer: wallet, amount: check.paid, claimId, service: serviceName, flow: 'proof', resource, requestKey } }
    },

    /** The money moved before the proof came: delivering is redeeming (keeping the answer), if this request still holds the claim. */
    async settle (held: HeldPayment, answer?: Parameters<SettlePayment>[0]): Promise<Settled | Refusal> {
      const signed = options.receipts
      const receipt = {
        success: true,
        transaction: held.signature,
        network: options.receiptNetwork,
        payer: held.payer,
        ...(signed === undefined ? {} : { extensions: signed.signer.receiptExtension({ resourceUrl: signed.resourceUrl(held.resource), payer: held.payer, network: signed.network, transaction: held.signature }) })
      }
      if (await claims.redeem({ signature: held.signature, claimId: held.claimId, answer: answer === undefined ? undefined : { ...answer, receipt } })) {
        return { kind: 'settled', receipt }
      }
      return paymentInProgress('proof-taken-over')
    }
  }
}

export type PaymentVerifier = ReturnType<typeof createPaymentVerifier>
