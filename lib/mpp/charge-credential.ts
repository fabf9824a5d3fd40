import { Challenge, Credential, PaymentRequest } from 'mppx'
import { charge } from '@solana/mpp'
import { refusal, type Refusal } from '../contract/refusal.js'
import { isBase58OfLength } from '../solana/base58.js'
import { boundedCache } from '../http/bounded-memo.js'
import type { ChargeTerms } from './charge-terms.js'

/** As long as an x402 payment header may be (lib/x402/payment-payload.ts): a charge credential carries one transaction and its challenge. */
export const MAX_CREDENTIAL_LENGTH = 12_288

/** What a charge credential that passed the binding asks: a transaction to co-sign and send (pull), or a landed signature (push). */
export type ChargePayment =
  | { kind: 'pull', transaction: string }
  | { kind: 'push', signature: string }

/** What the credential must have been issued for: this resource, at this price, on these terms. */
export interface ChargeExpectation {
  resourceUrl: string
  amount: bigint
  terms: ChargeTerms
  secretKey: string
  nowMs: number
}

function resourceOf (challenge: { opaque?: string }): unknown {
  if (challenge.opaque === undefined) return undefined
  try {
    return PaymentRequest.deserialize(challenge.opaque).resource
  } catch {
    return undefined
  }
}

/** What a verified challenge says, read once: the resource it was issued for and its charge request. */
interface BoundChallenge {
  resource: unknown
  request: ReturnType<typeof charge.schema.request.safeParse>
}

/**
 * Challenges whose binding verified, by key and content, with what they say: every credential of a
 * resource answers one of the few challenges it offers a minute, so the HMAC (computed in
 * JavaScript by mppx) and the reading of its request are done once per challenge, not per payment.
 * Only ours are kept (a forged one never verifies), so the bound is the challenges issued.
 */
const verifiedChallenges = boundedCache<BoundChallenge>(4096)

function boundChallenge (challenge: Challenge.Challenge, secretKey: string): BoundChallenge | undefined {
  const key = `${secretKey}\n${JSON.stringify(challenge)}`
  const known = verifiedChallenges.get(key)
  if (known !== undefined) return known
  if (!Challenge.verify(challenge, { secretKey })) return undefined
  return verifiedChallenges.set(key, { resource: resourceOf(challenge), request: charge.schema.request.safeParse(challenge.request) })
}

const invalid = (message: string) => refusal('MPP_CREDENTIAL_INVALID', `${message}; nothing moved`)
const mismatch = (message: string) => refusal('MPP_CHALLENGE_MISMATCH', `${message}; pay a challenge of this resource's 402. Nothing moved`)

/**
 * Reads an `Authorization: Payment` credential (mppx's Credential.deserialize) and checks its
 * challenge: the HMAC binding (mppx's Challenge.verify with our key: the challenge is one we
 * issued, unaltered), its expiry, and that it was issued for this resource on the terms this
 * resource offers now. What the payment itself must be (the transfer, its amount, its recipient)
 * is judged after, by the same rules as x402's exact and the proof headers'.
 */
export function readChargeCredential (header: string, expected: ChargeExpectation): { kind: 'read', payment: ChargePayment } | Refusal {
  if (header.length > MAX_CREDENTIAL_LENGTH) return invalid(`the credential is longer than ${MAX_CREDENTIAL_LENGTH} characters`)
  let credential
  try {
    credential = Credential.deserialize(header.trim())
  } catch {
    return invalid('Authorization is not a Payment credential (base64url JSON of a challenge and a payload)')
  }
  const { challenge } = credential
  const bound = boundChallenge(challenge, expected.secretKey)
  if (bound === undefined) {
    return refusal('MPP_CHALLENGE_INVALID', 'the credential\'s challenge was not issued by this merchant, or was altered; nothing moved')
  }
  if (challenge.method !== charge.name || challenge.intent !== charge.intent) return invalid(`${challenge.method}/${challenge.intent} is not offered; this merchant takes solana/charge`)
  if (challenge.expires === undefined || !(Date.parse(challenge.expires) > expected.nowMs)) {
    return refusal('MPP_CHALLENGE_INVALID', 'the challenge expired; pay a new 402\'s challenge. Nothing moved')
  }
  const { resource, request } = bound
  if (resource !== expected.resourceUrl) return mismatch(`this challenge was issued for ${typeof resource === 'string' ? JSON.stringify(resource.slice(0, 200)) : 'no resource'}, not ${JSON.stringify(expected.resourceUrl)}`)
  if (!request.success) return invalid('the challenge\'s request is not a Solana charge request')
  const { amount, currency, recipient, methodDetails } = request.data
  const { terms } = expected
  if (amount !== expected.amount.toString() || currency !== terms.mint || recipient !== terms.payTo ||
    methodDetails.network !== terms.network || methodDetails.decimals !== terms.decimals || (methodDetails.splits?.length ?? 0) > 0) {
    return mismatch('the challenge asks other terms (amount, currency, recipient or network) than this resource offers now')
  }
  const sponsored = methodDetails.feePayer === true
  if (sponsored && methodDetails.feePayerKey !== terms.feePayer) return mismatch('the challenge names another fee payer than this merchant\'s')
  const payload = charge.schema.credential.payload.safeParse(credential.payload)
  if (!payload.success) return invalid('the payload is not a Solana charge payload')
  const { type, transaction, signature } = payload.data
  if (type === 'transaction') {
    if (!sponsored) return invalid('a transaction pays the pull challenge (feePayer true), which the merchant co-signs and sends; with the push challenge, send it yourself and present its signature')
    if (transaction === undefined || transaction === '') return invalid('payload.transaction is missing')
    return { kind: 'read', payment: { kind: 'pull', transaction } }
  }
  if (type === 'signature') {
    if (sponsored) return invalid('a signature pays the push challenge; the pull challenge (feePayer true) takes the signed transaction')
    if (signature === undefined || signature.length < 64 || !isBase58OfLength(signature, 64)) return invalid('payload.signature is not a base58 64-byte transaction signature')
    return { kind: 'read', payment: { kind: 'push', signature } }
  }
  return invalid(`payload type ${JSON.stringify(type).slice(0, 40)} is neither "transaction" nor "signature"`)
}
