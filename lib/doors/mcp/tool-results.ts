import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ErrorBody } from '../../errors/error-body.js'

/**
 * Tool results in the one form every tool answers with: the JSON document in `structuredContent`
 * and the same document as JSON text in `content[0].text` (for clients that read text only), as the
 * x402 MCP transport asks of a PaymentRequired and MCP asks of a tool with an output schema.
 */
function jsonResult (document: object, isError: boolean, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(document) }],
    structuredContent: document as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
    ...(meta === undefined ? {} : { _meta: meta })
  }
}

/** The tool's document: the same JSON the HTTP route answers with. */
export function documentResult (document: object, meta?: Record<string, unknown>): CallToolResult {
  return jsonResult(document, false, meta)
}

/** A failed call: the common error body, with its stable `code`. */
export function errorResult (body: ErrorBody): CallToolResult {
  return jsonResult(body, true)
}

/** A paid tool called without a usable payment: the x402 PaymentRequired (and, in `_meta`, other protocols' challenges), and the tool did not run. */
export function paymentRequiredResult (paymentRequired: object, meta?: Record<string, unknown>): CallToolResult {
  return jsonResult(paymentRequired, true, meta)
}
