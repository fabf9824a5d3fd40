import { verify } from 'node:crypto'
import { createEd25519KeyCache } from '../solana/ed25519-keys.js'
import { isRpcUnavailable } from '../solana/rpc-errors.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import type { CheckedTransfer } from './transaction-rules.js'

const SIGNATURE_BYTES = 64
/** The payer signs second, after the fee payer (checkPayloadTransfer holds it to that). */
const PAYER_SLOT = 1

/** @x402/svm's reason identifiers, per version. */
const REASONS = {
  signature: { 1: 'invalid_exact_svm_payload_signature_invalid', 2: 'invalid_exact_svm_payload_signature_invalid' },
  simulation: { 1: 'transaction_simulation_failed', 2: 'invalid_exact_svm_transaction_simulation_failed' }
} as const

/** The options @x402/svm's facilitator simulates with: the payload as signed (the fee payer's slot empty), its own blockhash. */
const SIMULATION = { sigVerify: false, replaceRecentBlockhash: false, commitment: 'confirmed', encoding: 'base64' } as const

const payerKeyOf = createEd25519KeyCache()

/** True when the payer's slot holds its Ed25519 signature of the message (key and signature read from the transaction's bytes). */
export function payerSigned (transfer: CheckedTransfer): boolean {
  const { transaction } = transfer
  const start = transaction.signaturesOffset + PAYER_SLOT * SIGNATURE_BYTES
  const signature = transaction.bytes.subarray(start, start + SIGNATURE_BYTES)
  const key = payerKeyOf(transaction.staticAccounts[PAYER_SLOT])
  return key !== undefined && verify(null, transaction.messageBytes, key, signature)
}

/** A verdict as @x402/svm's facilitator gives one: its reason identifier, and the simulation's error as its message. */
export type ExactVerdict = { isValid: true } | { isValid: false, invalidReason: string, invalidMessage?: string }

/**
 * The part of `exact` verification that is per payment and not static: the payer's signature
 * (Node's Ed25519, in place) and the simulation (our RPC client, with the library's options and
 * verdict: any `err` refuses). It follows checkPayloadTransfer, which made every static check
 * of @x402/svm (and stricter ones) on bytes decoded once, against token accounts derived at
 * start. The verdicts keep the library's reasons, so a refusal reads as it did; the library stays
 * the oracle (test/lib/x402/exact-verification.test.ts). A node that cannot answer throws.
 */
export function createExactVerification (rpc: SolanaRpc) {
  return {
    async verify (transfer: CheckedTransfer, x402Version: 1 | 2): Promise<ExactVerdict> {
      if (!payerSigned(transfer)) return { isValid: false, invalidReason: REASONS.signature[x402Version] }
      let err: unknown
      try {
        ({ value: { err } } = await rpc.simulateTransaction(transfer.base64 as never, SIMULATION).send())
      } catch (error) {
        if (isRpcUnavailable(error)) throw error
        // Any other refusal of the node (a transaction it cannot read) is a failed simulation, as the library judges it.
        return { isValid: false, invalidReason: REASONS.simulation[x402Version], invalidMessage: (error as Error).message }
      }
      if (err === null || err === undefined) return { isValid: true }
      return { isValid: false, invalidReason: REASONS.simulation[x402Version], invalidMessage: `Simulation failed: ${JSON.stringify(err, (_, value: unknown) => typeof value === 'bigint' ? value.toString() : value)}` }
    }
  }
}

export type ExactVerification = ReturnType<typeof createExactVerification>
