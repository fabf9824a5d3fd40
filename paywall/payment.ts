import type { PageData, PaymentRequired } from './page-data.js'

/** POST /api/x402/prepare's answer (schemas/paywall.ts, PreparedPayment). */
export interface Prepared {
  transaction: string
  buyer: string
  balance: string
  price: string
  decimals: number
  symbol: string
  enough: boolean
  lastValidBlockHeight: string
}

/** An answer of the merchant in its error shape: its code and message are shown as they are. */
export class MerchantRefusal extends Error {
  constructor (readonly status: number, readonly code: string, message: string) { super(message) }
}

const PAYMENT_IDENTIFIER = 'payment-identifier'
const LOST_ANSWER_ATTEMPTS = 5
const BUSY_ATTEMPTS = 20

async function refusalOf (response: Response): Promise<MerchantRefusal> {
  const body = await response.json().catch(() => ({})) as { code?: unknown, message?: unknown }
  return new MerchantRefusal(response.status, typeof body.code === 'string' ? body.code : `HTTP_${response.status}`,
    typeof body.message === 'string' ? body.message : response.statusText)
}

/** The merchant builds the transaction for this buyer (this page reaches no RPC) and says what the buyer holds. */
export async function prepare (data: PageData, buyer: string): Promise<Prepared> {
  const response = await fetch(data.prepareUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ resource: data.resource, buyer })
  })
  if (!response.ok) throw await refusalOf(response)
  return await response.json() as Prepared
}

/** A fresh id per purchase: the same id and transaction fetch a lost answer again, never a second charge. */
export function newPaymentId (): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return 'pay_' + Array.from(bytes, byte => byte.toString(16).padStart(2, '0')).join('')
}

export const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, byte => String.fromCharCode(byte)).join(''))
export const fromBase64 = (text: string) => Uint8Array.from(atob(text), char => char.charCodeAt(0))

/** The requirement this page pays: the `exact` one on this network and in this token (not blindly accepts[0]). */
export function chosenRequirement (data: PageData): PaymentRequired['accepts'][number] {
  const accepted = data.paymentRequired?.accepts.find(accept => accept.scheme === 'exact' && accept.asset === data.mint && accept.network.startsWith('solana:'))
  if (accepted === undefined) throw new Error('the merchant offers no payment this page can make')
  return accepted
}

/** The PAYMENT-SIGNATURE header: an x402 v2 payload with the signed transaction and the purchase's payment-identifier. */
export function paymentHeader (data: PageData, signedTransaction: Uint8Array, paymentId: string): string {
  const required = data.paymentRequired as PaymentRequired
  const declared = required.extensions?.[PAYMENT_IDENTIFIER] as { info?: Record<string, unknown> } | undefined
  const payload = {
    x402Version: 2,
    resource: required.resource,
    accepted: chosenRequirement(data),
    payload: { transaction: toBase64(signedTransaction) },
    extensions: { [PAYMENT_IDENTIFIER]: { info: { ...declared?.info, id: paymentId } } }
  }
  return btoa(JSON.stringify(payload))
}

const sleep = async (ms: number) => await new Promise(resolve => setTimeout(resolve, ms))

/**
 * Repeats the request with the payment. An answer lost on the way (the connection dropped) is
 * asked for again with the same payment: the merchant settles once and hands the kept answer
 * back. "Pending" (sent, not confirmed yet) and "in progress" are waited out the same way.
 */
export async function pay (header: string, progress: (message: string) => void): Promise<Response> {
  let lost = 0
  for (let attempt = 1; ; attempt++) {
    let response: Response
    try {
      response = await fetch(location.href, { headers: { accept: 'application/json', 'payment-signature': header }, cache: 'no-store' })
    } catch {
      if (++lost >= LOST_ANSWER_ATTEMPTS) throw new Error('The answer did not arrive. Reload this page later and pay again only if your wallet shows no payment.')
      progress('The answer was lost on the way; asking again with the same payment (you are not charged twice)…')
      await sleep(500 * lost)
      continue
    }
    const retryAfter = Number(response.headers.get('retry-after') ?? '1')
    if ((response.status === 503 || response.status === 409) && attempt < BUSY_ATTEMPTS) {
      const refusal = await refusalOf(response.clone())
      if (refusal.code === 'X402_SETTLEMENT_PENDING' || refusal.code === 'PAYMENT_IN_PROGRESS') {
        progress('Your payment was sent and awaits confirmation on chain; asking again with the same payment…')
        await sleep(Math.min(Math.max(retryAfter, 1), 10) * 1000)
        continue
      }
    }
    return response
  }
}

export { refusalOf }
