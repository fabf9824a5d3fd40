import { STATUS_CODES } from 'node:http'
import { errorBody } from '../errors/error-body.js'
import type { ErrorCode } from '../errors/error-codes.js'

/** Node's parser errors, as the status and code of the one error shape. */
function classify (error: { code?: string }): { status: number, code: ErrorCode, message: string } {
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large' }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive' }
  return { status: 400, code: 'BAD_REQUEST', message: 'The request is not valid HTTP' }
}

/**
 * The complete HTTP response for a request Node could not even parse, written on the raw socket:
 * the one error shape, the fixed headers and a request id, then the connection closes.
 */
export function connectionErrorResponse (error: { code?: string }, requestId: string, fixedHeaders: Record<string, string>): string {
  const { status, code, message } = classify(error)
  const body = JSON.stringify(errorBody({ id: requestId }, status, code, message))
  const headers = { ...fixedHeaders, 'x-request-id': requestId, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), connection: 'close' }
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`)
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`
}
