import { refusal, type Refusal } from '../contract/refusal.js'
import { payloadBeyondBounds } from './payload-bounds.js'

/**
 * Far above any Solana transaction (1,232 bytes on the wire) with the extensions a client echoes
 * from the 402 (the analysis's bazaar metadata makes a payload about 9 KB of base64), within
 * Node's 16 KiB for all headers, far below a header flood.
 */
export const MAX_PAYMENT_HEADER_LENGTH = 12_288
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/** A payment payload whose shape was checked: the fields verification reads are present and typed. */
export interface PaymentPayloadInput {
  x402Version: 1 | 2
  scheme: string
  network: string
  /** base64 wire transaction, partially signed (the fee payer's slot is empty) */
  transaction: string
  /** v2 only: the requirements the client says it accepted, verbatim */
  accepted?: Record<string, unknown>
  /** The payload as received, for the library's verify */
  raw: Record<string, unknown>
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid (message: string): Refusal {
  return refusal('X402_INVALID_PAYLOAD', message)
}

/** Decodes an X-PAYMENT / PAYMENT-SIGNATURE header: base64 of JSON. */
export function decodePaymentHeader (header: string): { kind: 'decoded', payload: unknown } | Refusal {
  const text = header.trim()
  if (text.length > MAX_PAYMENT_HEADER_LENGTH) return invalid(`the payment header is longer than ${MAX_PAYMENT_HEADER_LENGTH} characters`)
  if (!BASE64.test(text)) return invalid('the payment header is not base64')
  try {
    return { kind: 'decoded', payload: JSON.parse(Buffer.from(text, 'base64').toString('utf8')) }
  } catch {
    return invalid('the payment header is not base64-encoded JSON')
  }
}

/**
 * Checks the shape of a decoded payload against the version its header promised (v1 in X-PAYMENT,
 * v2 in PAYMENT-SIGNATURE; an MCP payload says its own). Nothing here judges the payment itself.
 */
export function readPaymentPayload (payload: unknown, expectedVersion?: 1 | 2): { kind: 'read', input: PaymentPayloadInput } | Refusal {
  if (!isRecord(payload)) return invalid('the payment payload is not a JSON object')
  // Every door's payload passes here first: bounded before any other code walks it.
  const beyond = payloadBeyondBounds(payload)
  if (beyond !== undefined) return invalid(beyond)
  const version = payload.x402Version
  if (version !== 1 && version !== 2) {
    return refusal('X402_UNSUPPORTED', `x402Version ${JSON.stringify(version) ?? 'undefined'} is not supported (1 or 2)`)
  }
  if (expectedVersion !== undefined && version !== expectedVersion) {
    return refusal('X402_UNSUPPORTED', `x402Version ${version} arrived in the header of version ${expectedVersion} (X-PAYMENT carries v1, PAYMENT-SIGNATURE v2)`)
  }
  const inner = payload.payload
  if (!isRecord(inner) || typeof inner.transaction !== 'string' || inner.transaction === '') {
    return invalid('payload.transaction (a base64 transaction) is missing')
  }
  let scheme: unknown
  let network: unknown
  let accepted: Record<string, unknown> | undefined
  if (version === 1) {
    scheme = payload.scheme
    network = payload.network
  } else {
    if (!isRecord(payload.accepted)) return invalid('accepted (the chosen payment requirements) is missing')
    accepted = payload.accepted
    scheme = accepted.scheme
    network = accepted.network
  }
  if (typeof scheme !== 'string' || typeof network !== 'string') return invalid('scheme and network must be strings')
  return { kind: 'read', input: { x402Version: version, scheme, network, transaction: inner.transaction, accepted, raw: payload } }
}
