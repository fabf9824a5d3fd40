import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Address, Signature } from '@solana/kit'
import type { PaymentClaims } from '../../db/payment-claims.js'
import { callRpc, rpcUnavailable } from '../solana/rpc-errors.js'
import { transactionShapeProblem } from './transaction-shape.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import type { PaidServiceName, PaidService } from './catalog.js'
import { PaymentError } from './payment-error.js'
import type { PaymentProof } from './proof-headers.js'
import { checkPaymentTransaction, type PaymentTransaction } from './verify-transaction.js'

export interface ClaimedPayment {
  signature: string
  payer: string
  paid: bigint
  claimId: string
  service: PaidServiceName
}

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
}

const NOT_FOUND_POLL_MS = 400
const IN_PROGRESS_RETRY_SECONDS = '1'

/**
 * Turns a proof into a claimed payment, or a PaymentError saying what is wrong. One
 * getTransaction decides the payment; one atomic store operation decides who may use it.
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

  function alreadyUsed (): PaymentError {
    return new PaymentError({ code: 'PAYMENT_ALREADY_USED', message: 'This payment has already bought a delivery; pay again for another' })
  }

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

  return {
    async verifyAndClaim (proof: PaymentProof, serviceName: PaidServiceName, service: PaidService, resource: string):
    Promise<ClaimedPayment> {
      // A spent proof is refused without asking the chain.
      if (await claims.status(proof.signature) === 'redeemed') throw alreadyUsed()

      const tx = await callRpc(async () => {
        await options.ensureNetwork()
        return await lookUp(proof.signature)
      })
      if (tx === null) {
        throw new PaymentError({
          code: 'PAYMENT_NOT_FOUND',
          message: `No ${options.commitment} transaction with this signature; if it was just sent, retry in a few seconds`
        })
      }

      const check = checkPaymentTransaction(tx, {
        payer: proof.wallet,
        payTo: options.payTo,
        mint: options.mint,
        price: service.price,
        maxAgeSeconds: options.maxAgeSeconds,
        nowSeconds: Math.floor(Date.now() / 1000)
      })
      if (!check.ok) throw new PaymentError(check.rejection)

      const claimId = randomUUID()
      const claim = await claims.claim({
        signature: proof.signature,
        claimId,
        service: serviceName,
        payer: proof.wallet,
        amount: check.paid,
        resource,
        leaseMs: options.leaseMs
      })
      if (!claim.claimed) {
        if (claim.status === 'redeemed') throw alreadyUsed()
        throw new PaymentError(
          { code: 'PAYMENT_IN_PROGRESS', message: 'Another request is being served with this payment right now; if it fails, retry with the same proof' },
          { 'retry-after': IN_PROGRESS_RETRY_SECONDS }
        )
      }
      return { signature: proof.signature, payer: proof.wallet, paid: check.paid, claimId, service: serviceName }
    }
  }
}

export type PaymentVerifier = ReturnType<typeof createPaymentVerifier>
