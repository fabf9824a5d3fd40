import type { PaymentReceipt } from './documents.js'

/** Progress of one purchase, in order, for a caller's onStep (the CLI prints them). */
export type BuyStep =
  | { type: 'request', url: string }
  | {
    type: 'payment-required'
    url: string
    /** Base units of the payment token. */
    amount: bigint
    /** The amount in token units, exact decimal text. */
    amountDisplay: string
    symbol: string | undefined
    payTo: string
    asset: string
    network: string
  }
  | { type: 'requirements-accepted', service: string, amount: bigint, maxPrice: bigint | undefined }
  /** Which way this purchase pays: the standard x402 flow (the merchant settles) or pay-then-prove. */
  | { type: 'flow', flow: 'x402' | 'proof', reason: string }
  | { type: 'x402-payment-sent', header: string }
  | { type: 'payment-sent', signature: string, amount: bigint, source: string, destination: string, mint: string, tokenProgram: string }
  | { type: 'payment-confirmed', signature: string, commitment: string }
  | { type: 'proof-sent', signature: string, attempt: number }
  | { type: 'delivery-retry', attempt: number, status: number | undefined, code: string | undefined, delayMs: number }
  /** `redelivered`: the merchant served the answer this payment had already bought (a lost answer fetched again; nothing charged again). */
  | { type: 'delivered', status: number, receipt: PaymentReceipt | null, redelivered: boolean }

export type OnStep = (step: BuyStep) => void
