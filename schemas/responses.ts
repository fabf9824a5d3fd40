import { STATUS_CODES } from 'node:http'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { buyerMeaning, ERROR_CODES, type ErrorCode } from './error-codes.js'
import { PAYMENT_HEADERS } from './payment-headers.js'

/**
 * Every response an operation can give, for the OpenAPI document: its statuses, their bodies
 * (errors narrowed to the codes that operation can produce, from the one error-code table) and the
 * headers that come with them.
 */

/** The error codes each free operation can answer with, besides the ones every operation can (paid ones: their product's entry, lib/catalogue/). */
const OPERATION_ERRORS = {
  getManifest: [],
  getX402Discovery: [],
  getLiveness: [],
  getReadiness: [],
  listRegistry: ['VALIDATION_ERROR', 'STORE_UNAVAILABLE', 'RPC_UNAVAILABLE'],
  getReputation: ['VALIDATION_ERROR', 'STORE_UNAVAILABLE'],
  listReputationDeliveries: ['VALIDATION_ERROR', 'STORE_UNAVAILABLE'],
  prepareX402Payment: ['VALIDATION_ERROR', 'RESOURCE_NOT_FOR_SALE', 'RPC_UNAVAILABLE'],
  requestRefund: ['VALIDATION_ERROR', 'REFUND_NETWORK_MISMATCH', 'REFUND_PARTIAL_UNSUPPORTED', 'RATE_LIMITED', 'STORE_UNAVAILABLE', 'RPC_UNAVAILABLE']
} as const satisfies Record<string, readonly ErrorCode[]>

export type OperationId = keyof typeof OPERATION_ERRORS

/** A paid operation: its id and the codes it answers with besides the payment's own, from its product's entry. */
export interface PaidOperation {
  id: string
  errors: readonly ErrorCode[]
}

/** A free operation by its id, or a paid one. */
export type Operation = OperationId | PaidOperation

const idOf = (operation: Operation) => typeof operation === 'string' ? operation : operation.id

/**
 * Any route: a request target Fastify cannot read (400) or too long (414), headers too large for
 * Node (431), rate limiting when on (429), and a bug (500).
 */
const EVERY_OPERATION: ErrorCode[] = ['BAD_REQUEST', 'URI_TOO_LONG', 'RATE_LIMITED', 'HEADERS_TOO_LARGE', 'INTERNAL_ERROR']

/**
 * Codes of the framework that no operation lists for a status of its own (a method the route does
 * not answer, a body it does not read, shutting down …): the `default` answer, its `code` still
 * a closed set, so a generated client's error union narrows on `code`.
 */
const FRAMEWORK_CODES: ErrorCode[] = ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'NOT_ACCEPTABLE', 'REQUEST_TIMEOUT',
  'CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'SERVICE_UNAVAILABLE']

/** The 402 codes: a paid route answers each with the payment requirements (the PaymentRequired model). */
export const PAYMENT_CODES = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(code => ERROR_CODES[code].status === 402)

const isPaid = (operation: Operation): operation is PaidOperation => typeof operation !== 'string'

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)
const codeEnum = (codes: readonly ErrorCode[]) => Type.Union(codes.map(code => Type.Literal(code)), {
  description: codes.map(code => `\`${code}\`: ${buyerMeaning(code)}`).join('; ')
})

/** The error body with `code` narrowed: generated clients can switch on it. */
function errorModel (id: string, status: number, codes: readonly ErrorCode[], description: string): TSchema {
  return Type.Object({
    statusCode: Type.Literal(status, { description: 'HTTP status, repeated' }),
    error: Type.String({ description: 'HTTP reason phrase' }),
    message: Type.String({ description: 'human-readable explanation' }),
    code: codeEnum(codes),
    requestId: Type.String({ description: 'id of the request (also in x-request-id), for support' })
  }, {
    $id: id,
    additionalProperties: true,
    description,
    examples: [{ statusCode: status, error: STATUS_CODES[status], message: buyerMeaning(codes[0]), code: codes[0], requestId: 'a1b2c3d4e5f6-1f' }]
  })
}

/** Codes an operation answers with, by status. */
function codesByStatus (operation: Operation): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>()
  const codes: ErrorCode[] = [...(isPaid(operation) ? operation.errors : OPERATION_ERRORS[operation]), ...EVERY_OPERATION]
  for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...byStatus.get(ERROR_CODES[code].status) ?? [], code])
  if (isPaid(operation)) {
    // A paid delivery whose lease ran out while it was served answers 409 PAYMENT_ALREADY_USED.
    byStatus.set(409, [...byStatus.get(409) ?? [], 'PAYMENT_ALREADY_USED'])
    // The standard x402 flow: two payments in one request, and a settlement not confirmed in time or not payable.
    // BAD_REQUEST: a Host header the 402's resource URL cannot be built from.
    byStatus.set(400, [...byStatus.get(400) ?? [], 'PAYMENT_FORMS_CONFLICT'])
    // x402: a wallet whose payments failed at settlement too often.
    byStatus.set(429, [...byStatus.get(429) ?? [], 'PAYER_BLOCKED'])
    byStatus.set(503, [...byStatus.get(503) ?? [], 'X402_SETTLEMENT_PENDING', 'X402_FEE_PAYER_UNFUNDED'])
  }
  for (const [status, list] of byStatus) byStatus.set(status, [...new Set(list)])
  return byStatus
}

const errorModelId = (operation: Operation, status: number) => `${pascal(idOf(operation))}Error${status}`

const defaultModelId = (operation: Operation) => `${pascal(idOf(operation))}ErrorDefault`

/** The framework's codes an operation answers with a status it does not list. */
function defaultCodes (operation: Operation): ErrorCode[] {
  const listed = codesByStatus(operation)
  return FRAMEWORK_CODES.filter(code => !listed.has(ERROR_CODES[code].status))
}

function defaultModel (operation: Operation): TSchema {
  const codes = defaultCodes(operation)
  const model = errorModel(defaultModelId(operation), ERROR_CODES[codes[0]].status, codes, `Error answered by ${idOf(operation)} with a status it does not list`)
  return { ...model, properties: { ...model.properties, statusCode: Type.Integer({ minimum: 400, maximum: 599, description: 'HTTP status, repeated' }) } }
}

/** Named error models of an operation, one per status (registered with the other models). */
export function operationErrorModels (operation: Operation): TSchema[] {
  return [
    ...[...codesByStatus(operation)].map(([status, codes]) =>
      errorModel(errorModelId(operation, status), status, codes, `Error answered by ${idOf(operation)} with status ${status}`)),
    defaultModel(operation)
  ]
}

/** Named error models of every free operation (the paid ones are registered from the catalogue). */
export const OPERATION_ERROR_MODELS: TSchema[] = (Object.keys(OPERATION_ERRORS) as OperationId[]).flatMap(operationErrorModels)

/** The 402 body: x402 v1 payment requirements in the common error shape, with one of the payment codes. */
export const PaymentRequiredCodes = codeEnum(PAYMENT_CODES)

/**
 * One documented response header. `always`: every answer of that status carries it (the OpenAPI
 * header's `required`, set when the document is finished: lib/manifest/openapi-discovery.ts);
 * otherwise it comes when its description says.
 */
const header = (description: string, schema: Record<string, unknown> = { type: 'string' }, always = false) =>
  ({ ...schema, description, ...(always ? { 'x-required': true } : {}) })
const cacheControl = (value: string, description: string, always = true) =>
  ({ 'cache-control': header(description, { type: 'string', const: value }, always) })

export const HEADERS = {
  requestId: { 'x-request-id': header('id of the request (an incoming sane x-request-id is reused)', undefined, true) },
  retryAfter: { 'retry-after': header('seconds to wait before retrying, when waiting helps', { type: 'integer', minimum: 0 }) },
  rateLimit: {
    'x-ratelimit-limit': header('requests allowed per window (when rate limiting is on; not on answers made before it counts)', { type: 'integer' }),
    'x-ratelimit-remaining': header('requests left in the current window (when rate limiting is on; not on answers made before it counts)', { type: 'integer' }),
    'x-ratelimit-reset': header('seconds until the window resets (when rate limiting is on; not on answers made before it counts)', { type: 'integer' })
  },
  /** The security headers of a JSON API (plugins/app/response-headers.ts); HSTS only on a request that came over HTTPS. */
  security: {
    'x-content-type-options': header('no MIME sniffing', { type: 'string', const: 'nosniff' }, true),
    'x-frame-options': header('never framed', { type: 'string', const: 'DENY' }, true),
    'strict-transport-security': header('HSTS, only on a request that came over HTTPS (as a trusted proxy reports it), not on answers made before routing')
  },
  /** CORS open to every origin, so browser agents can pay and read the receipts (plugins/app/cross-origin.ts). */
  cors: {
    'access-control-allow-origin': header('any origin may read the answer', { type: 'string', const: '*' }, true),
    'access-control-expose-headers': header('the headers a browser agent may read: the request id, Retry-After, the receipts, PAYMENT-REQUIRED and WWW-Authenticate', undefined, true)
  },
  receipt: {
    [PAYMENT_HEADERS.receipt]: header('x402 v1 receipt (proof headers or X-PAYMENT): base64 JSON { success, transaction, network, payer }'),
    'payment-receipt': header('MPP receipt (Authorization: Payment): base64url JSON { method, reference (the transaction), status, timestamp }'),
    'payment-response': header('x402 v2 receipt (PAYMENT-SIGNATURE): base64 JSON { success, transaction, network (CAIP-2), payer }'),
    [PAYMENT_HEADERS.redelivered]: header('`true` when the answer is the kept one of a payment whose first answer did not reach the buyer (nothing charged again)', { type: 'string', const: 'true' }),
    ...cacheControl('no-store', 'a paid answer is never cached')
  },
  paymentRequired: {
    'payment-required': header('x402 v2 PaymentRequired, base64 JSON (exact scheme, CAIP-2 network, amount, asset, payTo, extra.feePayer, extensions.bazaar)', undefined, true),
    'www-authenticate': header('MPP\'s Solana charge beside x402 (unless the operator turned it off): two `Payment` challenges, pull (the merchant pays the fee) and push, answered with `Authorization: Payment`'),
    ...cacheControl('no-store', 'payment terms are never cached')
  },
  /** On the answers of a paid route that refuse a payment (400, 409, 429, 503): the terms again. */
  paymentRefused: {
    'payment-required': header('when the answer refuses a payment: the x402 v2 PaymentRequired again, base64 JSON, its `error` the reason'),
    ...cacheControl('no-store', 'when the answer refuses a payment: never cached', false)
  },
  entityTag: { etag: header('entity tag of the body; send it back in If-None-Match to get a 304 while it is current', undefined, true) },
  /** The manifest: revalidated with its ETag on every use. */
  manifestCaching: cacheControl('no-cache', 'caches keep the manifest but revalidate it (ETag) before each use'),
  /** The discovery documents: fixed for a process. */
  discoveryCaching: cacheControl('public, max-age=300', 'caches may keep the document five minutes, then revalidate it (ETag)')
}

/** What every answer carries, a 304 included: its request id, the security and CORS headers (HSTS over HTTPS, the rate-limit headers when rate limiting is on). */
export const COMMON_HEADERS = { ...HEADERS.requestId, ...HEADERS.security, ...HEADERS.cors, ...HEADERS.rateLimit }
// Statuses a paid route's payment refusals come with (lib/doors/http-challenges.ts): they carry PAYMENT-REQUIRED.
const REFUSAL_STATUSES = new Set([400, 409, 429, 503])
const RETRYABLE = new Set([409, 429, 503])

/** One documented response: its description, headers and JSON body (by typed reference). */
export function jsonResponse (schema: TSchema, description: string, headers: Record<string, unknown> = {}) {
  return { description, headers: { ...COMMON_HEADERS, ...headers }, content: { 'application/json': { schema } } }
}

/** The error responses of an operation: one per status it can answer, each with its named model. */
export function errorResponses (operation: Operation): Record<number, ReturnType<typeof jsonResponse>> {
  const responses: Record<number, ReturnType<typeof jsonResponse>> = {}
  for (const [status, codes] of codesByStatus(operation)) {
    const description = codes.map(code => buyerMeaning(code)).join('; ')
    const refusal = isPaid(operation) && REFUSAL_STATUSES.has(status) ? HEADERS.paymentRefused : {}
    responses[status] = jsonResponse(Type.Ref(errorModelId(operation, status)), description, { ...(RETRYABLE.has(status) ? HEADERS.retryAfter : {}), ...refusal })
  }
  return responses
}

/**
 * A success response by typed reference to its model, with a description and headers: the handler
 * stays type-checked against the model, and the document shows the headers.
 */
export function documented<T extends TSchema> (schema: T, description: string, headers: Record<string, unknown> = {}) {
  if (schema.$id === undefined) throw new Error('documented() needs a schema with $id')
  return Type.Unsafe<Static<T>>({ $ref: schema.$id, description, headers: { ...COMMON_HEADERS, ...headers } })
}

/** The 402 of a paid operation: the payment requirements in the common error shape. */
export const paymentRequiredResponse = (model: TSchema) =>
  jsonResponse(Type.Ref(model.$id as string), 'payment required or the payment was refused: pay with X-PAYMENT / PAYMENT-SIGNATURE (the requirements are in the body, v1, and the PAYMENT-REQUIRED header, v2), or pay on chain and repeat the request with proof headers', HEADERS.paymentRequired)

/** Any status the operation does not list (405 METHOD_NOT_ALLOWED, 415 …): the one error shape, its codes listed. */
export const defaultResponse = (operation: Operation) =>
  jsonResponse(Type.Ref(defaultModelId(operation)), `any other error: ${defaultCodes(operation).join(', ')}`)
