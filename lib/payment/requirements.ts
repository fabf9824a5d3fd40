import { formatTokenAmount, PAYMENT_TOKEN_DECIMALS, type PaidService } from './catalog.js'
import { PAYMENT_HEADERS } from './headers.js'
import { refusal, type Refusal } from '../contract/refusal.js'
import { PROOF_PAYER_RULE } from '../../schemas/payment-headers.js'

export interface MerchantTerms {
  x402Network: string
  payTo: string
  mint: string
  symbol: string
  label: string
  maxAgeSeconds: number
  /** The payTo's associated token account for the mint, when known. */
  recipientTokenAccount?: string
  /** REQUIRE_WALLET_SIGNATURE: proofs must carry the payer's signature binding them to the request. */
  walletSignatureRequired: boolean
  /** REDELIVERY: who may fetch again an answer that did not reach its buyer. */
  redelivery: 'payment' | 'buyer-only'
  /** The x402 fee payer: the exact scheme's transaction names it, and it co-signs. */
  feePayer?: string
}

/** Solana Pay transfer request: `solana:<recipient>?amount=<token units>&spl-token=<mint>&label=...&message=...` */
export function solanaPayUrl (terms: MerchantTerms, amount: bigint, message: string): string {
  const query = [
    `amount=${formatTokenAmount(amount)}`,
    `spl-token=${terms.mint}`,
    `label=${encodeURIComponent(terms.label)}`,
    `message=${encodeURIComponent(message)}`
  ].join('&')
  return `solana:${terms.payTo}?${query}`
}

/**
 * One x402 v1 "exact" payment requirement. `extra` carries what a buyer without an x402
 * library needs: the amount in token units, symbol, decimals, the recipient token account,
 * the proof headers and a Solana Pay URL, and what protects a proof once its transfer is public
 * (the wallet signature binds it to one request; `redelivery` says who gets a lost answer again).
 */
export function paymentRequirement (terms: MerchantTerms, service: PaidService, resource: string) {
  return {
    scheme: 'exact' as const,
    network: terms.x402Network,
    maxAmountRequired: service.price.toString(),
    resource,
    description: service.description,
    mimeType: 'application/json',
    payTo: terms.payTo,
    maxTimeoutSeconds: terms.maxAgeSeconds,
    asset: terms.mint,
    extra: {
      amount: formatTokenAmount(service.price),
      symbol: terms.symbol,
      decimals: PAYMENT_TOKEN_DECIMALS,
      ...(terms.recipientTokenAccount === undefined ? {} : { recipientTokenAccount: terms.recipientTokenAccount }),
      proofHeaders: { signature: PAYMENT_HEADERS.signature, wallet: PAYMENT_HEADERS.wallet, walletSignature: PAYMENT_HEADERS.walletSignature },
      walletSignatureRequired: terms.walletSignatureRequired,
      redelivery: terms.redelivery,
      payerRule: PROOF_PAYER_RULE,
      solanaPayUrl: solanaPayUrl(terms, service.price, service.description),
      ...(terms.feePayer === undefined ? {} : { feePayer: terms.feePayer })
    }
  }
}

export type PaymentRequirement = ReturnType<typeof paymentRequirement>

/** The refusal of a request that came without payment: both ways to pay, and which headers to send. */
export function paymentRequiredRefusal (service: PaidService): Refusal {
  return refusal('PAYMENT_REQUIRED',
    `Pay ${service.price} base units: with x402 (sign the transfer that accepts describes and repeat the request with it in X-PAYMENT, ` +
      `or PAYMENT-SIGNATURE for v2; the merchant settles it), or on chain yourself, then repeat the request with the ${PAYMENT_HEADERS.signature} and ${PAYMENT_HEADERS.wallet} headers`)
}

/** The x-payment-response receipt header: base64 JSON, as x402 clients decode it. */
export function encodeReceipt (receipt: { transaction: string, network: string, payer: string }): string {
  return Buffer.from(JSON.stringify({ success: true, ...receipt })).toString('base64')
}
