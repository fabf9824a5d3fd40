import type { PaymentRequired } from '@x402/core/types'
import { perResourceUrl } from '../http/public-url.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import type { PaidServiceName } from '../payment/catalog.js'
import { createChallengeBodies, type ChallengeBodies } from '../payment/challenge.js'
import { paymentRequirement, paymentRequiredRefusal, type MerchantTerms } from '../payment/requirements.js'
import { withHttpDiscovery } from '../x402/discovery-extension.js'
import { encodeHeaderJson, X402_HEADERS } from '../x402/payment-headers.js'
import { refusalHeaders, type Refusal } from '../contract/refusal.js'
import type { HttpAnswer } from '../http/http-answer.js'

export interface HttpChallengeOptions {
  /** Everything of the terms but the recipient token account, which becomes known later. */
  terms: Omit<MerchantTerms, 'recipientTokenAccount'>
  recipientTokenAccount: () => string | undefined
  publicBaseUrl: string | undefined
  catalogue: Catalogue
  /** The x402 v2 PaymentRequired of a service at a URL. */
  paymentRequired: (service: PaidServiceName, url: string, error: string) => PaymentRequired
  /** MPP's `WWW-Authenticate: Payment` challenges of a service at a URL (lib/mpp/charge-challenges.ts), unless MPP_CHARGE=false. */
  mppChallenges?: (service: PaidServiceName, url: string) => string
}

// What the official x402 servers say in a plain challenge's PAYMENT-REQUIRED: a v2 client pays
// with PAYMENT-SIGNATURE, so the body's instructions (for the proof headers) would mislead it.
const X402_PAYMENT_REQUIRED = 'Payment required'
const UNPAID_ANSWERS_KEPT = 1024
// Its signed offers hold 150 to 300 s (lib/receipts/jws-signer.ts): a kept header is signed again after a minute.
const OFFERS_RESIGNED_AFTER_MS = 60_000
const WWW_AUTHENTICATE = 'www-authenticate'
const CHALLENGE_HEADERS = { 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' } as const

interface UnpaidAnswer { paymentRequired: string, signedAtMs: number, url: string, body: (requestId: string) => string }
interface ServiceChallenge { recipientTokenAccount: string | undefined, bodies: ChallengeBodies, unpaid: (request: { protocol: string, host: string, url: string }) => UnpaidAnswer }

/**
 * The 402 answers of the paid routes: the error shape with the x402 v1 requirements in the body and
 * the v2 PaymentRequired in PAYMENT-REQUIRED. A service's challenge is the same for every request
 * but its request id and resource URL: its body text is made once (and again only when the
 * recipient token account becomes known); the answer without payment is kept per resource URL.
 */
export function createHttpChallenges (options: HttpChallengeOptions) {
  // Every v2 PaymentRequired carries the product's bazaar discovery extension (issue #30).
  const paymentRequired = (service: PaidServiceName, url: string, error: string) => withHttpDiscovery(options.paymentRequired(service, url, error), options.catalogue.product(service))
  const challenges = new Map<PaidServiceName, ServiceChallenge>()

  function challengeOf (service: PaidServiceName): ServiceChallenge {
    const recipientTokenAccount = options.recipientTokenAccount()
    let cached = challenges.get(service)
    if (cached === undefined || cached.recipientTokenAccount !== recipientTokenAccount) {
      const paid = options.catalogue.product(service)
      const bodies = createChallengeBodies(paymentRequirement({ ...options.terms, recipientTokenAccount }, paid, ''), paymentRequiredRefusal(paid))
      cached = {
        recipientTokenAccount,
        bodies,
        unpaid: perResourceUrl(options.publicBaseUrl, UNPAID_ANSWERS_KEPT, (url): UnpaidAnswer => ({
          paymentRequired: encodeHeaderJson(paymentRequired(service, url, X402_PAYMENT_REQUIRED)),
          signedAtMs: Date.now(),
          url,
          body: bodies.paymentRequiredAt(url)
        }))
      }
      challenges.set(service, cached)
    }
    return cached
  }

  return {
    /** The answer to a request without payment: made once per resource URL, the request id spliced in. */
    unpaid (service: PaidServiceName, request: { id: string, protocol: string, host: string, url: string }): HttpAnswer {
      const answer = challengeOf(service).unpaid(request)
      if (Date.now() - answer.signedAtMs > OFFERS_RESIGNED_AFTER_MS) {
        answer.paymentRequired = encodeHeaderJson(paymentRequired(service, answer.url, X402_PAYMENT_REQUIRED))
        answer.signedAtMs = Date.now()
      }
      const headers: Record<string, string> = { ...CHALLENGE_HEADERS, [X402_HEADERS.paymentRequired]: answer.paymentRequired }
      // Beside x402's, never instead: a refusal carries none (an MPP client would pay again).
      if (options.mppChallenges !== undefined) headers[WWW_AUTHENTICATE] = options.mppChallenges(service, answer.url)
      return { statusCode: 402, headers, body: answer.body(request.id) }
    },

    /** A refused payment: its code, status and message, with the payment requirements again. */
    refused (service: PaidServiceName, refused: Refusal, requestId: string, url: string): HttpAnswer {
      return {
        statusCode: refused.statusCode,
        headers: {
          ...CHALLENGE_HEADERS,
          ...refusalHeaders(refused),
          [X402_HEADERS.paymentRequired]: encodeHeaderJson(paymentRequired(service, url, refused.message))
        },
        body: challengeOf(service).bodies.refused(refused, requestId, url)
      }
    }
  }
}
