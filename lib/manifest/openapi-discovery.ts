import type { OpenAPIV3_1 as OpenApi } from 'openapi-types'
import { PAYMENT_HEADERS, X402_HEADERS } from '../../schemas/payment-headers.js'
import { COMMON_HEADERS, HEADERS } from '../../schemas/responses.js'
import { proseList } from '../tools/tool-catalog.js'
import { MCP_SESSION_HEADER, X402_PAYMENT_META_KEY } from '../../schemas/mcp.js'
import { MCP_PATH } from './merchant-manifest.js'
import { MPP_CHARGE_HOW_TO, type ProductTerms } from './payment-terms.js'
import type { RefundExtension } from '../refunds/refund-extension.js'

/**
 * What the generated OpenAPI document needs beyond the route schemas for the machines that read it:
 * x402 directories (x402scan runs @agentcash/discovery: `x-payment-info` on paid operations,
 * operation-level `security: []`, `info.x-guidance`), client generators (the x402 headers linked
 * to the schemas of what they carry once decoded) and MCP clients (POST /mcp).
 */

type Document = OpenApi.Document
type Operation = OpenApi.OperationObject & { 'x-payment-info'?: unknown }

/**
 * `x-payment-info` of a paid operation: the price in decimal USD (the 402 asks atomic units), and
 * how to pay (with the 402's extensions.refund when REFUNDS). With MPP's charge on, its Solana
 * offer too, in both readers' forms: `protocols[].mpp` (@agentcash/discovery) and `offers`
 * (mppx's discovery, amounts in base units as its challenges give them).
 */
export function paymentInfo (terms: ProductTerms, refund?: RefundExtension, mpp = false) {
  const x402 = { version: 2, scheme: 'exact', network: terms.network.v2, asset: terms.asset, payTo: terms.payTo, amount: terms.amount }
  const charge = { method: 'solana', intent: 'charge', currency: terms.asset }
  return {
    price: { mode: 'fixed', currency: 'USD', amount: terms.price },
    protocols: [{ x402: refund === undefined ? x402 : { ...x402, extensions: refund } }, ...(mpp ? [{ mpp: charge }] : [])],
    ...(mpp ? { offers: [{ ...charge, amount: terms.amount, description: terms.description }] } : {})
  }
}

/** Short instructions an agent can follow (`info.x-guidance`); /llms.txt says the same at more length. */
export function guidance (products: ProductTerms[], mpp = false): string {
  const list = products.map(p => `${p.method} ${p.openapiPath} (${p.price} ${p.symbol}; MCP tool ${p.tool}): ${p.description}`).join(' ')
  return `Solana token data sold per request, paid in ${products[0]?.symbol ?? 'USDC'} over x402 (exact scheme, Solana). ${list} ` +
    'To buy: call the operation without payment; the 402 carries the terms in PAYMENT-REQUIRED (base64 JSON x402 v2 PaymentRequired) ' +
    'and, for x402 v1 clients, in the body. Then either (a) x402: build the exact-scheme transaction of accepts[0] (fee payer = ' +
    `extra.feePayer), sign it and repeat the request with ${X402_HEADERS.paymentV2.toUpperCase()} (v2) or X-PAYMENT (v1); the merchant settles ` +
    'and answers with the document and PAYMENT-RESPONSE; or (b) pay-then-prove: transfer the price to payTo yourself, then repeat the ' +
    `request with ${PAYMENT_HEADERS.signature} and ${PAYMENT_HEADERS.wallet}. Send one payment form per request. Malformed input is refused ` +
    `(400) before any payment, and a failure after payment charges nothing. The same products are MCP tools at POST ${MCP_PATH} ` +
    `(payment in params._meta["${X402_PAYMENT_META_KEY}"]). Free: /.well-known/agent.json, /.well-known/x402, /llms.txt, /reputation. A2A agents: /.well-known/agent-card.json.` +
    (mpp ? ` ${MPP_CHARGE_HOW_TO}` : '')
}

const DECODED: Record<string, string> = {
  [X402_HEADERS.paymentRequired]: 'X402PaymentRequired',
  [X402_HEADERS.responseV2]: 'X402SettleResponse',
  [X402_HEADERS.responseV1]: 'X402SettleResponse',
  [X402_HEADERS.paymentV2]: 'X402PaymentPayload',
  [X402_HEADERS.paymentV1]: 'X402PaymentPayload'
}

/** A base64 JSON header, with the schema of its decoded content (JSON Schema 2020-12 content keywords). */
const encoded = (model: string) => ({
  type: 'string',
  contentEncoding: 'base64',
  contentMediaType: 'application/json',
  contentSchema: { $ref: `#/components/schemas/${model}` }
})

const JSON_RPC = {
  JsonRpcRequest: {
    type: 'object',
    required: ['jsonrpc', 'method'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'integer'], description: 'absent in a notification' },
      method: { type: 'string', examples: ['initialize', 'tools/list', 'tools/call'] },
      params: { type: 'object', additionalProperties: true, description: `tools/call: { name, arguments, _meta: { "${X402_PAYMENT_META_KEY}": PaymentPayload } }` }
    },
    additionalProperties: false,
    description: 'A JSON-RPC 2.0 request or notification of the Model Context Protocol'
  },
  JsonRpcResponse: {
    type: 'object',
    required: ['jsonrpc'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'integer', 'null'] },
      result: { type: 'object', additionalProperties: true, description: 'tools/call: { content, structuredContent, isError, _meta }; an unpaid paid tool: isError with the x402 PaymentRequired in structuredContent' },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} }
      }
    },
    additionalProperties: false,
    description: 'A JSON-RPC 2.0 response'
  }
}

// A POST carries one message or a batch, and is answered alike: named, so generated clients get a type for each.
const batchOf = (model: string, description: string) => ({
  oneOf: [{ $ref: `#/components/schemas/${model}` }, { type: 'array', items: { $ref: `#/components/schemas/${model}` }, minItems: 1 }],
  description
})
const JSON_RPC_BATCHES = {
  JsonRpcRequestBody: batchOf('JsonRpcRequest', 'One JSON-RPC request or notification, or a batch of them'),
  JsonRpcResponseBody: batchOf('JsonRpcResponse', 'The JSON-RPC response to one request, or the responses to a batch')
}
const rpcBody = (model: keyof typeof JSON_RPC_BATCHES) => ({ $ref: `#/components/schemas/${model}` })

type RawHeaders = Record<string, { description: string, 'x-required'?: boolean } & Record<string, unknown>>

/**
 * A documented header as the OpenAPI document spells it: its description, its schema, and
 * `required` when every answer of the status carries it (`x-required` in schemas/responses.ts).
 */
function openApiHeader ({ description, 'x-required': always, ...schema }: RawHeaders[string]): OpenApi.HeaderObject {
  return { description, schema, ...(always === true ? { required: true } : {}) }
}
const openApiHeaders = (headers: RawHeaders) => Object.fromEntries(Object.entries(headers).map(([name, raw]) => [name, openApiHeader(raw)]))

const MCP_SESSION: RawHeaders = {
  [MCP_SESSION_HEADER]: { type: 'string', description: 'on the answer to an initialize request: the session id a client sends with its later POSTs (a cancelled paid call is found by it)' }
}

/** POST /mcp: the MCP server (streamable HTTP, stateless, JSON answers), described as the JSON-RPC endpoint it is. */
function mcpOperation (errorModel: string, products: ProductTerms[]): Operation {
  // An initialize is answered with a session id, whatever the answer's status.
  const headers = { ...openApiHeaders(COMMON_HEADERS), ...openApiHeaders(MCP_SESSION) }
  const error = (description: string, more: RawHeaders = {}) => ({ description, headers: { ...headers, ...openApiHeaders(more) }, content: { 'application/json': { schema: { $ref: `#/components/schemas/${errorModel}` } } } })
  const rpcError = (description: string) => ({ description, headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } } } })
  return {
    operationId: 'mcp',
    tags: ['mcp'],
    summary: `MCP server (JSON-RPC 2.0 over streamable HTTP, stateless): the products as tools ${proseList(products.map(product => product.tool))}, and the free documents`,
    description: 'Send MCP JSON-RPC requests (initialize, tools/list, tools/call) with `Accept: application/json, text/event-stream`. ' +
      `A paid tool called without payment returns isError with the x402 v2 PaymentRequired; call it again with the PaymentPayload in params._meta["${X402_PAYMENT_META_KEY}"]; ` +
      'the receipt comes in result._meta["x402/payment-response"].',
    security: [],
    parameters: [{ in: 'header', name: 'accept', required: true, schema: { type: 'string', examples: ['application/json, text/event-stream'] }, description: 'must accept application/json and text/event-stream (MCP streamable HTTP)' }],
    requestBody: { required: true, content: { 'application/json': { schema: rpcBody('JsonRpcRequestBody') } } },
    responses: {
      200: { description: 'the JSON-RPC response(s)', headers, content: { 'application/json': { schema: rpcBody('JsonRpcResponseBody') } } },
      202: { description: 'notifications or responses only: accepted, no body', headers },
      400: rpcError('not a JSON-RPC message, or a batch holding initialize'),
      403: error('a browser origin that is not allowed (FORBIDDEN)'),
      406: rpcError('the Accept header does not name application/json and text/event-stream'),
      413: error('the body is larger than the merchant accepts (PAYLOAD_TOO_LARGE)'),
      415: rpcError('the body is not application/json'),
      429: error('rate limited: each tool call of a batch counts (RATE_LIMITED)', HEADERS.retryAfter),
      500: error('a bug (INTERNAL_ERROR)')
    }
  } as unknown as Operation
}

export interface DiscoveryOptions {
  products: ProductTerms[]
  /** Where /llms.txt is: absolute with PUBLIC_BASE_URL, else relative to the document. */
  llmsTxtUrl: string
  /** The 402's extensions.refund, when REFUNDS. */
  refund?: RefundExtension
  /** MPP's Solana charge is offered beside x402 (MPP_CHARGE). */
  mpp?: boolean
}

/** The document as the route schemas produced it, finished for crawlers and generators. */
export function finishDocument (document: Document, options: DiscoveryOptions): Document {
  const byPath = new Map(options.products.map(product => [product.openapiPath, product]))
  document.info['x-guidance' as keyof typeof document.info] = guidance(options.products, options.mpp) as never
  Object.assign(document, { 'x-agentcash-guidance': { llmsTxtUrl: options.llmsTxtUrl } })
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(item ?? {}) as Operation[]) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue
      // Authentication is declared per operation: none anywhere; payment is x-payment-info.
      operation.security = []
      const product = byPath.get(path)
      if (product !== undefined) operation['x-payment-info'] = paymentInfo(product, options.refund, options.mpp)
      linkEncodedHeaders(operation)
    }
  }
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...JSON_RPC, ...JSON_RPC_BATCHES } as never }
  document.paths = { ...document.paths, [MCP_PATH]: { post: mcpOperation('Error', options.products) } as OpenApi.PathItemObject }
  return document
}

function linkEncodedHeaders (operation: Operation): void {
  for (const parameter of (operation.parameters ?? []) as OpenApi.ParameterObject[]) {
    const model = parameter.in === 'header' ? DECODED[parameter.name] : undefined
    if (model !== undefined) parameter.schema = encoded(model) as never
  }
  for (const response of Object.values(operation.responses ?? {}) as OpenApi.ResponseObject[]) {
    for (const [name, header] of Object.entries(response.headers ?? {}) as Array<[string, OpenApi.HeaderObject]>) {
      // A route's header comes through @fastify/swagger with `x-required` still in its schema.
      const schema = header.schema as Record<string, unknown> | undefined
      if (schema?.['x-required'] === true) {
        header.required = true
        delete schema['x-required']
      }
      const model = DECODED[name]
      if (model !== undefined) header.schema = encoded(model) as never
    }
  }
}
