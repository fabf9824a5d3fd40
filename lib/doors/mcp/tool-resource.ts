/** Resource URL of a tool in the PaymentRequired it answers with (x402's MCP transport): names the tool, not the host. */
export function toolResourceUrl (toolName: string): string {
  return `mcp://tool/${toolName}`
}
