import { createHash, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { errorBody } from '../errors/error-body.js'
import type { ErrorCode } from '../errors/error-codes.js'
import { requestIdOf } from '../http/request-id.js'

const digest = (value: string) => createHash('sha256').update(value).digest()

/** True when no token is required, or the Authorization header carries it as a bearer token. */
export function metricsTokenAccepted (token: string | undefined, authorization: string | string[] | undefined): boolean {
  if (token === undefined) return true
  const header = Array.isArray(authorization) ? authorization[0] : authorization
  const match = /^Bearer (\S+)$/i.exec(header ?? '')
  // Compared as digests of equal length, in constant time.
  return match !== null && timingSafeEqual(digest(match[1]), digest(token))
}

function sendError (request: IncomingMessage, response: ServerResponse, statusCode: number, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify(errorBody({ id: requestIdOf(request.headers) }, statusCode, code, message))
  response.writeHead(statusCode, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(body)
}

/**
 * The metrics listener of METRICS_PORT: GET /metrics only, nothing else of the service. A plain
 * HTTP server, so scrapes never queue behind the app's requests nor show in its request figures.
 */
export function createMetricsServer (options: { token: string | undefined, render: () => Promise<string>, contentType: string }): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (path !== '/metrics') return sendError(request, response, 404, 'NOT_FOUND', 'Only /metrics is served here')
    if (request.method !== 'GET' && request.method !== 'HEAD') return sendError(request, response, 405, 'METHOD_NOT_ALLOWED', 'Use GET', { allow: 'GET, HEAD' })
    if (!metricsTokenAccepted(options.token, request.headers.authorization)) {
      return sendError(request, response, 401, 'UNAUTHORIZED', 'Send the metrics token as a bearer token', { 'www-authenticate': 'Bearer' })
    }
    options.render().then(text => {
      response.writeHead(200, { 'content-type': options.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text)
    }, () => sendError(request, response, 500, 'INTERNAL_ERROR', 'Metrics could not be rendered'))
  })
}
