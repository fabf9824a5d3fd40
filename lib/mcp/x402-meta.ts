/** Key of the PaymentPayload in a tools/call request's `params._meta` (x402 v2 MCP transport). */
export const X402_PAYMENT_META_KEY = 'x402/payment'

/** Key of the SettlementResponse in a paid tool result's `_meta` (x402 v2 MCP transport). */
export const X402_PAYMENT_RESPONSE_META_KEY = 'x402/payment-response'

/** Set (true) in a paid tool result's `_meta` when the result is a kept answer served again to the payment that bought it: nothing was charged. */
export const REDELIVERED_META_KEY = 'token-merchant/redelivered'

/** Resource URL of a tool in the PaymentRequired it answers with (x402's MCP transport): names the tool, not the host. */
export function toolResourceUrl (toolName: string): string {
  return `mcp://tool/${toolName}`
}
