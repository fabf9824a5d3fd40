import type { Catalogue } from '../catalogue/catalogue.js'
import { storedResource } from '../contract/stored-resource.js'
import { requestPath } from '../http/public-url.js'
import { PAYMENT_HEADERS } from '../payment/headers.js'
import type { PaymentVerifier } from '../payment/payment-verifier.js'
import { readPaymentProof } from '../payment/proof-headers.js'
import { checkWalletSignature } from '../payment/wallet-signature.js'
import { X402_HEADERS, type X402Flow } from '../x402/payment-headers.js'
import { decodePaymentHeader } from '../x402/payment-payload.js'
import type { X402Payments } from '../x402/x402-payments.js'
import type { HttpPaymentMethod } from './http-payment-method.js'
import { chargeReceiptHeader, type MppPayments } from '../mpp/mpp-payments.js'

/**
 * The ways to pay over HTTP, in the order the HTTP door asks them whether a request names them:
 * the seed proof headers, x402 v1 (X-PAYMENT) and x402 v2 (PAYMENT-SIGNATURE). Each entry adapts
 * one payment method (lib/payment, lib/x402), which knows no door, to the door's HTTP request; a
 * new way to pay is one more entry here.
 */
export function httpPaymentMethods (options: {
  proofs: PaymentVerifier
  x402: Pick<X402Payments, 'verifyAndClaim' | 'settle'>
  catalogue: Catalogue
  requireWalletSignature: boolean
  /** MPP's Solana charge, unless MPP_CHARGE=false. */
  mpp?: MppPayments
}): HttpPaymentMethod[] {
  return [
    proofHeaders(options.proofs, options.catalogue, options.requireWalletSignature),
    x402Header('x402-v1', X402_HEADERS.paymentV1, options.x402),
    x402Header('x402-v2', X402_HEADERS.paymentV2, options.x402),
    ...(options.mpp === undefined ? [] : [mppCredential(options.mpp)])
  ]
}

const AUTHORIZATION = 'authorization'
const PAYMENT_SCHEME = /^\s*payment\s/i

/**
 * MPP (the "Payment" HTTP authentication scheme): `Authorization: Payment <credential>` answering
 * a Solana charge challenge of the 402; the receipt in `Payment-Receipt`. Another scheme in
 * Authorization names no way to pay (the request is unpaid).
 */
function mppCredential (mpp: MppPayments): HttpPaymentMethod {
  return {
    headers: [AUTHORIZATION],
    carries: headers => typeof headers[AUTHORIZATION] === 'string' && PAYMENT_SCHEME.test(headers[AUTHORIZATION]),
    called: 'an MPP credential (Authorization: Payment)',
    flow: 'mpp',
    receiptHeader: 'payment-receipt',
    encodeReceipt: receipt => chargeReceiptHeader(receipt),
    async open ({ request, service, resource, requestKey, attempt }) {
      const read = mpp.read(request.headers[AUTHORIZATION] as string, service, resource)
      if (read.kind === 'refused') return read
      attempt()
      return await mpp.verifyAndClaim(read.payment, service, { resource, requestKey })
    }
  }
}

/**
 * Pay-then-prove: the transaction's signature and the payer's wallet in two headers (either one
 * names the method; a missing or malformed one is refused by name), and the payer's signature
 * over the request in a third when the merchant binds proofs to requests.
 */
function proofHeaders (proofs: PaymentVerifier, catalogue: Catalogue, requireWalletSignature: boolean): HttpPaymentMethod {
  return {
    headers: [PAYMENT_HEADERS.signature, PAYMENT_HEADERS.wallet],
    called: 'the proof headers',
    flow: 'proof',
    // Its receipt in the header x402 v1 answers in, which proof clients already read.
    receiptHeader: X402_HEADERS.responseV1,
    async open ({ request, service, resource, requestKey, attempt }) {
      const read = readPaymentProof(request.headers)
      if (read.kind !== 'proof') return read.kind === 'absent' ? { kind: 'unpaid' } : read
      attempt()
      const header = request.headers[PAYMENT_HEADERS.walletSignature]
      const walletSignature = Array.isArray(header) ? header[0] : header
      const binding = await checkWalletSignature(walletSignature, read.proof,
        { method: request.method, path: requestPath(request.url).split('?')[0] }, requireWalletSignature)
      if (binding !== undefined) return binding
      const verified = await proofs.verifyAndClaim(read.proof, service, catalogue.product(service),
        { resource: storedResource(resource), requestKey, buyerProven: walletSignature !== undefined && walletSignature !== '' })
      if (verified.kind !== 'held') return verified
      const held = verified.payment
      return { kind: 'held', payment: held, settle: async (answer) => await proofs.settle(held, answer) }
    }
  }
}

/** Standard x402: one header holding the base64 JSON payment payload; the merchant settles it as its own facilitator. */
function x402Header (flow: X402Flow, header: string, x402: Pick<X402Payments, 'verifyAndClaim' | 'settle'>): HttpPaymentMethod {
  return {
    headers: [header],
    called: 'one x402 header',
    flow,
    // Each version answers in its own header: PAYMENT-RESPONSE for v2, X-PAYMENT-RESPONSE for v1.
    receiptHeader: flow === 'x402-v2' ? X402_HEADERS.responseV2 : X402_HEADERS.responseV1,
    async open ({ request, service, resource, requestKey, attempt }) {
      // The door answers a repeated header as a conflict before any method opens the request.
      const decoded = decodePaymentHeader(request.headers[header] as string)
      if (decoded.kind === 'refused') return decoded
      attempt()
      const claim = await x402.verifyAndClaim(decoded.payload, service, { resource, flow, version: flow === 'x402-v1' ? 1 : 2, requestKey })
      if (claim.kind !== 'held') return claim
      const held = claim.payment
      return { kind: 'held', payment: held, settle: async (answer) => await x402.settle(held, answer) }
    }
  }
}
