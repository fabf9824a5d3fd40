import { setTimeout as sleep } from 'node:timers/promises'
import { PAYMENT_HEADERS } from '../lib/payment/headers.js'
import { BuyerError, isBuyerError } from './errors.js'
import { httpGet, serverError, type HttpAnswer, type HttpOptions } from './http.js'
import type { OnStep } from './steps.js'

export interface DeliveryOptions extends HttpOptions {
  /** Further attempts after the first, all with the same proof. */
  retries: number
  /** First pause; doubles per attempt up to MAX_DELAY_MS. */
  retryDelayMs: number
  onStep?: OnStep
}

const MAX_DELAY_MS = 8000

/**
 * Answers worth repeating with the same proof: the payment is not visible to the merchant yet,
 * another request holds it for a moment, or the merchant or its upstreams failed (the gate
 * releases the proof on every failure after payment).
 */
function isTransient (status: number, code: string | undefined): boolean {
  if (status === 402) return code === 'PAYMENT_NOT_FOUND'
  if (status === 409) return code === 'PAYMENT_IN_PROGRESS'
  return status === 408 || status === 429 || status >= 500
}

function retryAfterMs (headers: Headers): number | undefined {
  const value = headers.get('retry-after')
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) * 1000 : undefined
}

function failureMessage (url: string, signature: string, answer: HttpAnswer | undefined, unreachable: string | undefined): string {
  const { code, message } = answer === undefined ? {} : serverError(answer.body)
  const what = answer === undefined ? unreachable : `${answer.status}${code === undefined ? '' : ` ${code}`}${message === undefined ? '' : `: ${message}`}`
  const advice = code === 'PAYMENT_ALREADY_USED'
    ? 'the merchant says this payment has already bought a delivery'
    : 'do not pay again: retry the delivery with this signature'
  return `paid with ${signature}, but ${url} did not deliver (${what}); ${advice}`
}

/**
 * Repeats the request with the proof headers until the merchant delivers, retrying transient
 * failures a bounded number of times with backoff. It never pays: whatever happens, the same
 * signature is the proof, and DELIVERY_FAILED carries it.
 */
export async function deliverWithProof (url: string, proof: { signature: string, wallet: string, walletSignature?: string }, options: DeliveryOptions): Promise<HttpAnswer> {
  const headers: Record<string, string> = { [PAYMENT_HEADERS.signature]: proof.signature, [PAYMENT_HEADERS.wallet]: proof.wallet }
  if (proof.walletSignature !== undefined) headers[PAYMENT_HEADERS.walletSignature] = proof.walletSignature
  for (let attempt = 1; ; attempt++) {
    options.onStep?.({ type: 'proof-sent', signature: proof.signature, attempt })
    let answer: HttpAnswer | undefined
    let unreachable: string | undefined
    try {
      answer = await httpGet(url, { ...options, headers })
    } catch (error) {
      if (!isBuyerError(error, 'HTTP_UNREACHABLE')) throw error
      unreachable = error.message
    }
    if (answer !== undefined && answer.status >= 200 && answer.status < 300) return answer

    const code = answer === undefined ? undefined : serverError(answer.body).code
    const transient = answer === undefined || isTransient(answer.status, code)
    if (!transient || attempt > options.retries) {
      throw new BuyerError('DELIVERY_FAILED', failureMessage(url, proof.signature, answer, unreachable), {
        signature: proof.signature,
        payer: proof.wallet,
        status: answer?.status,
        serverCode: code,
        attempts: attempt
      })
    }
    const backoff = Math.min(MAX_DELAY_MS, options.retryDelayMs * 2 ** (attempt - 1))
    const delayMs = Math.min(MAX_DELAY_MS, Math.max(backoff, answer === undefined ? 0 : retryAfterMs(answer.headers) ?? 0))
    options.onStep?.({ type: 'delivery-retry', attempt, status: answer?.status, code, delayMs })
    await sleep(delayMs)
  }
}
