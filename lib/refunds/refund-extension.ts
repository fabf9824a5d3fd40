import { REFUND_PATH } from './refund-path.js'

/** The settings the extension is made of (config.ts's Config has them; lib/ names no config type). */
export interface RefundSettings {
  REFUNDS: boolean
  REFUND_WINDOW_SECONDS: number
}

/** `extensions.refund` in the shape of x402's refund extension proposal. */
export interface RefundExtension {
  refund: { info: { refundEndpoint: string, windowSeconds: number, partialRefunds: false } }
}

/**
 * The one refund extension every place that publishes the requirements carries (the 402 on every
 * door, x-payment-info, the manifest), so a buyer reads the same terms wherever it looked;
 * undefined when REFUNDS is off. `baseUrl`: the receipts' base (the receipt key signs the refund).
 */
export function refundExtension (settings: RefundSettings, baseUrl: string): RefundExtension | undefined {
  if (!settings.REFUNDS) return undefined
  return { refund: { info: { refundEndpoint: `${baseUrl}${REFUND_PATH}`, windowSeconds: settings.REFUND_WINDOW_SECONDS, partialRefunds: false } } }
}
