import type { Address, Signature } from '@solana/kit'
import { isBase58Address, isBase58OfLength } from '../solana/base58.js'
import { PAYMENT_HEADERS } from './headers.js'
import { refusal, type Refusal } from '../contract/refusal.js'

/** A proof whose headers decoded: a 64-byte signature and a 32-byte address, branded as kit's types. */
export interface PaymentProof {
  signature: Signature
  wallet: Address
}

function isBase58Signature (value: string): boolean {
  return value.length >= 64 && isBase58OfLength(value, 64)
}

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/**
 * Reads the two proof headers. No header at all means "no proof yet" (a plain challenge);
 * anything present but malformed is rejected, naming which header is wrong.
 */
export function readPaymentProof (headers: Record<string, string | string[] | undefined>):
  { kind: 'proof', proof: PaymentProof } | { kind: 'absent' } | Refusal {
  const signature = single(headers[PAYMENT_HEADERS.signature])?.trim()
  const wallet = single(headers[PAYMENT_HEADERS.wallet])?.trim()
  if (signature === undefined && wallet === undefined) return { kind: 'absent' }

  const problems: string[] = []
  if (signature === undefined || signature === '') problems.push(`${PAYMENT_HEADERS.signature} is missing`)
  else if (!isBase58Signature(signature)) problems.push(`${PAYMENT_HEADERS.signature} is not a base58-encoded 64-byte transaction signature`)
  if (wallet === undefined || wallet === '') problems.push(`${PAYMENT_HEADERS.wallet} is missing`)
  else if (!isBase58Address(wallet)) problems.push(`${PAYMENT_HEADERS.wallet} is not a base58-encoded 32-byte public key`)

  if (problems.length > 0) {
    const invalid = [PAYMENT_HEADERS.signature, PAYMENT_HEADERS.wallet].filter(h => problems.some(p => p.startsWith(h)))
    return refusal('INVALID_PAYMENT_HEADER', problems.join('; '), { details: { invalidHeaders: invalid } })
  }
  // Both were just checked to decode to 64 and 32 bytes: the one place the brands are applied.
  return { kind: 'proof', proof: { signature: signature as Signature, wallet: wallet as Address } }
}
