/** Key of the PaymentPayload in a tools/call request's `params._meta` (x402 v2 MCP transport). */
export const X402_PAYMENT_META_KEY = 'x402/payment'

/** Key of the SettlementResponse in a paid tool result's `_meta` (x402 v2 MCP transport). */
export const X402_PAYMENT_RESPONSE_META_KEY = 'x402/payment-response'

/** Resource URL of a tool in the PaymentRequired it answers with (x402's MCP transport): names the tool, not the host. */
export function toolResourceUrl (toolName: string): string {
  return `mcp://tool/${toolName}`
}
