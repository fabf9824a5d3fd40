import { setTimeout as sleep } from 'node:timers/promises'
import type { TransactionSigner } from '@solana/kit'
import { wrapFetchWithPayment, x402Client as X402Client } from '@x402/fetch'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import type { Network, PaymentRequired } from '@x402/core/types'
import { BuyerError } from './errors.js'
import { serverError, type HttpAnswer, type HttpOptions } from './http.js'
import { X402_NETWORKS } from '../lib/x402/networks.js'
import { decodeReceipt } from './requirements.js'
import type { PaymentReceipt } from './documents.js'
import type { OnStep } from './steps.js'
import { withPaymentIdentifier } from './payment-identifier.js'
import { PAYMENT_HEADERS } from '../lib/payment/headers.js'

/** The CAIP-2 ids official x402 clients know (mainnet, devnet, testnet). */
const KNOWN_NETWORKS = new Set<string>([X402_NETWORKS.solana.caip2, X402_NETWORKS['solana-devnet'].caip2, X402_NETWORKS['solana-testnet'].caip2])
const MAX_DELAY_MS = 8000

/** The standard-flow offer of a 402: an `exact` requirement on a known Solana network with a fee payer. */
export interface StandardOffer {
  network: string
  payTo: string
  asset: string
  amount: bigint
  feePayer: string
}

/** Reads the PAYMENT-REQUIRED header (x402 v2); undefined when the merchant offers no standard flow. */
export function standardOffer (first: HttpAnswer): StandardOffer | undefined {
  const header = first.headers.get('payment-required')
  if (header === null) return undefined
  let required: PaymentRequired
  try {
    required = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PaymentRequired
  } catch {
    return undefined
  }
  const offer = Array.isArray(required?.accepts)
    ? required.accepts.find(r => r?.scheme === 'exact' && KNOWN_NETWORKS.has(r.network) && typeof r.extra?.feePayer === 'string' && /^\d+$/.test(String(r.amount)))
    : undefined
  if (offer === undefined) return undefined
  return { network: offer.network, payTo: offer.payTo, asset: offer.asset, amount: BigInt(offer.amount), feePayer: offer.extra.feePayer as string }
}

function isTransient (status: number, code: string | undefined): boolean {
  if (status === 409) return code === 'PAYMENT_IN_PROGRESS'
  return status === 408 || status === 429 || status >= 500
}

export interface StandardPaymentOptions extends HttpOptions {
  signer: TransactionSigner
  /** RPC URL the official client builds its transaction against (blockhash, mint). */
  rpcUrl: string
  retries: number
  retryDelayMs: number
  onStep?: OnStep
}

/**
 * Pays with the official x402 client (@x402/fetch + @x402/svm exact): it signs a transfer of the
 * price that the merchant co-signs as fee payer and settles, so the buyer spends no SOL. Only the
 * offer already checked against the manifest and the spending cap can be paid: the client's spend
 * controls cap it at that price and a policy keeps only that recipient and mint. A payment the
 * merchant could not confirm in time (503), or whose answer was lost, is retried with the same
 * payload (it carries a payment-identifier): that never pays twice, and a lost answer is re-delivered.
 */
export async function payWithStandardFlow (url: string, offer: StandardOffer, options: StandardPaymentOptions):
Promise<{ status: number, body: unknown, receipt: PaymentReceipt | null, version: 1 | 2, redelivered: boolean }> {
  const client = withPaymentIdentifier(new X402Client().register(offer.network as Network, new ExactSvmScheme(options.signer, { rpcUrl: options.rpcUrl })))
  client.setSpendControls({ allowedAssets: [{ network: offer.network as Network, asset: offer.asset, maxAmountPerPayment: offer.amount.toString() }] })
  client.registerPolicy((_version, requirements) => requirements.filter(r =>
    r.payTo === offer.payTo && r.asset === offer.asset && r.network === offer.network && BigInt(r.amount) === offer.amount))

  const baseFetch = options.fetch ?? fetch
  let payment: { name: string, value: string } | undefined
  const recording: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
    for (const name of ['payment-signature', 'x-payment']) {
      const value = headers.get(name)
      if (value !== null) payment = { name, value }
    }
    return await baseFetch(input, init)
  }
  const pay = wrapFetchWithPayment(recording, client)
  const timeout = () => AbortSignal.timeout(options.timeoutMs ?? 30_000)

  let response: Response | undefined
  try {
    response = await pay(url, { headers: { accept: 'application/json' }, signal: timeout() })
  } catch (error) {
    if (payment === undefined) {
      throw new BuyerError('PAYMENT_SEND_FAILED', `the x402 client could not pay ${url}: ${(error as Error).message}; nothing was paid`, {}, { cause: error })
    }
  }
  if (payment !== undefined) options.onStep?.({ type: 'x402-payment-sent', header: payment.name })

  for (let attempt = 1; ; attempt++) {
    let body: unknown
    if (response !== undefined) {
      const text = await response.text()
      try { body = text === '' ? undefined : JSON.parse(text) } catch { body = text }
      if (response.ok) {
        const receipt = decodeReceipt(response.headers.get('payment-response') ?? response.headers.get('x-payment-response'))
        return { status: response.status, body, receipt, version: payment?.name === 'x-payment' ? 1 : 2, redelivered: response.headers.get(PAYMENT_HEADERS.redelivered) === 'true' }
      }
    }
    const code = response === undefined ? undefined : serverError(body).code
    if (response?.status === 402) {
      // The merchant settles only after verifying, and never answers 402 once money moved.
      throw new BuyerError('PAYMENT_SEND_FAILED', `${url} refused the x402 payment (402${code === undefined ? '' : ` ${code}`}: ${serverError(body).message ?? ''}); nothing was paid`,
        { status: 402, serverCode: code })
    }
    if (payment === undefined || (response !== undefined && !isTransient(response.status, code)) || attempt > options.retries) {
      const what = `${response?.status ?? 'no answer'}${code === undefined ? '' : ` ${code}`}`
      // Money may have moved only when the merchant said so (settlement pending) or never answered.
      if (payment !== undefined && (response === undefined || code === 'X402_SETTLEMENT_PENDING')) {
        throw new BuyerError('DELIVERY_FAILED', `${url} did not deliver after the x402 payment (${what}); retry later with the same payment header (details.paymentHeader): it never pays twice`,
          { status: response?.status, serverCode: code, paymentHeader: payment })
      }
      throw new BuyerError('REQUEST_FAILED', `${url} answered ${what}: ${serverError(body).message ?? ''}; the merchant settles only what it delivers, nothing was paid`,
        { status: response?.status, serverCode: code })
    }
    const retryAfter = Number(response?.headers.get('retry-after') ?? '0') * 1000
    const delayMs = Math.min(MAX_DELAY_MS, Math.max(options.retryDelayMs * 2 ** (attempt - 1), Number.isFinite(retryAfter) ? retryAfter : 0))
    options.onStep?.({ type: 'delivery-retry', attempt, status: response?.status, code, delayMs })
    await sleep(delayMs)
    try {
      response = await baseFetch(url, { headers: { accept: 'application/json', [payment.name]: payment.value }, signal: timeout() })
    } catch {
      response = undefined
    }
  }
}
