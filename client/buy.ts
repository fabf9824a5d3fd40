import { createSolanaRpc, type TransactionSigner } from '@solana/kit'
import { formatTokenAmount } from '../lib/payment/catalog.js'
import { PAYMENT_HEADERS } from '../lib/payment/headers.js'
import { signProof } from '../lib/payment/wallet-signature.js'
import { deliverWithProof } from './delivery.js'
import { getManifest } from './discovery.js'
import type { Manifest, PaymentReceipt } from './documents.js'
import { BuyerError } from './errors.js'
import { httpGet, parseHttpUrl, serverError, type HttpOptions } from './http.js'
import { preparePayment, sendPayment, waitForConfirmation, type BuyerRpc, type Commitment } from './payment.js'
import { checkRequirement, decodeReceipt, readPaymentRequirement } from './requirements.js'
import type { OnStep } from './steps.js'
import { payWithStandardFlow, standardOffer } from './x402-flow.js'

/** How to pay: `x402` the standard flow, `proof` pay-then-prove, `auto` (default) x402 when offered. */
export type PaymentFlow = 'auto' | 'x402' | 'proof'

export interface BuyOptions extends HttpOptions {
  /** The buyer's wallet: owner of the paying token account and fee payer. */
  signer: TransactionSigner
  /** A kit RPC or its URL, on the merchant's cluster. */
  rpc: BuyerRpc | string
  /** Spending guard: the most this call may cost, in base units; a higher price is refused before paying. */
  maxPrice?: bigint
  /** The merchant's manifest to check the 402 against; fetched from the URL's origin when absent. */
  manifest?: Manifest
  onStep?: OnStep
  /** How final the payment must be before the proof is sent (default confirmed). */
  commitment?: Commitment
  /** How long to wait for that (default 60 s). */
  confirmTimeoutMs?: number
  /** Pause between getSignatureStatuses polls (default 400 ms). */
  pollIntervalMs?: number
  /**
   * A payment already made for this URL (the signature of a DELIVERY_FAILED or PAYMENT_UNCONFIRMED
   * error): deliver with it and pay nothing.
   */
  paidSignature?: string
  /**
   * `auto` (default): the standard x402 flow when the merchant offers it (PAYMENT-REQUIRED with a
   * fee payer) and `rpc` is a URL, else pay-then-prove. `x402` or `proof` insist on one.
   */
  flow?: PaymentFlow
  /** Deliveries retried with the same proof after a transient failure (default 5). */
  deliveryRetries?: number
  /** First pause before such a retry, doubling each time (default 500 ms). */
  retryDelayMs?: number
}

export interface BuyResult<T = unknown> {
  url: string
  status: number
  data: T
  /** The decoded x-payment-response header; null for a free answer. */
  receipt: PaymentReceipt | null
  /** The payment's signature; null when the resource answered without asking for payment. */
  signature: string | null
  /** Base units this call paid: 0 when it delivered with an earlier payment or nothing was asked. */
  amountPaid: bigint
  /** How it paid: the standard x402 flow, pay-then-prove, or null when nothing was asked. */
  flow: 'x402' | 'proof' | null
}

/**
 * One purchase, x402 style: call, read the 402, check it against the manifest and the spending
 * limit, pay with a single transferChecked, wait for confirmation, repeat the call with the proof.
 * Pays at most once; any failure after paying is DELIVERY_FAILED (or PAYMENT_UNCONFIRMED) with
 * the signature, which `paidSignature` turns into the delivery later.
 */
export async function buy<T = unknown> (url: string, options: BuyOptions): Promise<BuyResult<T>> {
  const target = parseHttpUrl(url).href
  const { signer, onStep } = options
  const rpc = typeof options.rpc === 'string' ? createSolanaRpc(options.rpc) : options.rpc
  const commitment = options.commitment ?? 'confirmed'
  const delivery = {
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    onStep,
    retries: options.deliveryRetries ?? 5,
    retryDelayMs: options.retryDelayMs ?? 500
  }
  if (options.maxPrice !== undefined && options.maxPrice < 0n) throw new BuyerError('INVALID_INPUT', 'maxPrice must not be negative')

  const deliver = async (signature: string, amountPaid: bigint): Promise<BuyResult<T>> => {
    // Bound to this request, so nobody watching the chain can redeem the payment first.
    const walletSignature = await signProof(signer, signature, 'GET', new URL(target).pathname)
    const answer = await deliverWithProof(target, { signature, wallet: signer.address, walletSignature }, delivery)
    const receipt = decodeReceipt(answer.headers.get(PAYMENT_HEADERS.receipt))
    onStep?.({ type: 'delivered', status: answer.status, receipt, redelivered: answer.headers.get(PAYMENT_HEADERS.redelivered) === 'true' })
    return { url: target, status: answer.status, data: answer.body as T, receipt, signature, amountPaid, flow: 'proof' }
  }
  if (options.paidSignature !== undefined) return await deliver(options.paidSignature, 0n)

  onStep?.({ type: 'request', url: target })
  const first = await httpGet(target, options)
  if (first.status >= 200 && first.status < 300) {
    return { url: target, status: first.status, data: first.body as T, receipt: null, signature: null, amountPaid: 0n, flow: null }
  }
  if (first.status !== 402) {
    const { code, message } = serverError(first.body)
    throw new BuyerError('REQUEST_FAILED', `${target} answered ${first.status}${code === undefined ? '' : ` ${code}`}${message === undefined ? '' : `: ${message}`}; nothing was paid`,
      { status: first.status, serverCode: code })
  }

  const requirement = readPaymentRequirement(first.body, target)
  const manifest = options.manifest ?? await getManifest(new URL(target).origin, options)
  const amount = BigInt(requirement.maxAmountRequired)
  onStep?.({
    type: 'payment-required',
    url: target,
    amount,
    amountDisplay: formatTokenAmount(amount, manifest.payment_decimals),
    symbol: requirement.extra?.symbol,
    payTo: requirement.payTo,
    asset: requirement.asset,
    network: requirement.network
  })
  const { price, service } = checkRequirement(requirement, manifest, target, options.maxPrice)
  onStep?.({ type: 'requirements-accepted', service: service.name, amount: price, maxPrice: options.maxPrice })

  const flow = options.flow ?? 'auto'
  const offer = flow === 'proof' ? undefined : standardOffer(first)
  const rpcUrl = typeof options.rpc === 'string' ? options.rpc : undefined
  if (flow === 'x402' && (offer === undefined || rpcUrl === undefined)) {
    throw new BuyerError('REQUIREMENTS_MISMATCH', offer === undefined
      ? `${target} does not offer the standard x402 flow (no PAYMENT-REQUIRED with a fee payer on a public Solana network); nothing was paid`
      : 'the standard x402 flow needs the RPC as a URL; nothing was paid')
  }
  // The standard offer must be the same deal the manifest and the v1 body describe.
  if (offer !== undefined && rpcUrl !== undefined && offer.amount === price && offer.payTo === requirement.payTo && offer.asset === requirement.asset) {
    onStep?.({ type: 'flow', flow: 'x402', reason: flow === 'x402' ? 'asked for' : 'the merchant offers it' })
    const paid = await payWithStandardFlow(target, offer, {
      signer, rpcUrl, fetch: options.fetch, timeoutMs: options.timeoutMs, onStep, retries: delivery.retries, retryDelayMs: delivery.retryDelayMs
    })
    onStep?.({ type: 'delivered', status: paid.status, receipt: paid.receipt, redelivered: paid.redelivered })
    return { url: target, status: paid.status, data: paid.body as T, receipt: paid.receipt, signature: paid.receipt?.transaction ?? null, amountPaid: price, flow: 'x402' }
  }
  if (flow === 'x402') throw new BuyerError('REQUIREMENTS_MISMATCH', `the x402 offer of ${target} differs from its v1 requirements; nothing was paid`)
  onStep?.({ type: 'flow', flow: 'proof', reason: flow === 'proof' ? 'asked for' : offer === undefined ? 'the merchant offers no standard x402 flow' : rpcUrl === undefined ? 'the RPC is not a URL' : 'the x402 offer differs from the v1 requirements' })

  const plan = await preparePayment(rpc, signer.address, requirement, price)
  const sent = await sendPayment(rpc, signer, plan, commitment)
  onStep?.({ type: 'payment-sent', signature: sent.signature, amount: price, source: plan.source, destination: plan.destination, mint: plan.mint, tokenProgram: plan.tokenProgram })
  await waitForConfirmation(rpc, sent, {
    commitment,
    timeoutMs: options.confirmTimeoutMs ?? 60_000,
    pollIntervalMs: options.pollIntervalMs ?? 400
  })
  onStep?.({ type: 'payment-confirmed', signature: sent.signature, commitment })
  return await deliver(sent.signature, price)
}
