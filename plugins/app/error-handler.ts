import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Socket } from 'node:net'
import { connectionErrorResponse } from '../../lib/http/connection-errors.js'
import { newRequestId } from '../../lib/http/request-id.js'
import { setFixedHeaders, STATIC_HEADERS } from './response-headers.js'
import { isAppError } from '../../lib/errors/app-error.js'
import { errorBody, validationError, type ValidationProblem } from '../../lib/errors/error-body.js'
import { CODE_BY_STATUS, type ErrorCode } from '../../lib/errors/error-codes.js'
import { loggableError } from '../../lib/errors/loggable-error.js'
import { PATTERN_SENTENCES } from '../../schemas/pattern-sentences.js'
import { wantsHtml } from '../../lib/paywall/accept.js'
import type { PaidServiceName } from '../../lib/payment/catalog.js'

function validationDetails (error: FastifyError): ValidationProblem[] {
  return (error.validation ?? []).map(v => ({
    in: error.validationContext ?? 'request',
    path: v.instancePath === '' ? (v.params as { missingProperty?: string }).missingProperty ?? '' : v.instancePath.slice(1).replaceAll('/', '.'),
    message: (v.keyword === 'pattern' ? PATTERN_SENTENCES[String((v.params as { pattern?: unknown }).pattern)] : undefined) ?? v.message
  }))
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The code this request ended with when it was not a delivery: read by the paid routes' hooks and the metrics, never parsed out of a body. */
    outcome?: string
  }
}

function sendError (request: FastifyRequest, reply: FastifyReply, statusCode: number, code: ErrorCode, message: string, details?: Record<string, unknown>) {
  request.outcome = code
  const body = errorBody(request, statusCode, code, message, details)
  // A person's browser on a paid route (a mistyped token) gets the refusal as a page, as its 402 is one.
  const service = (request.routeOptions.config as { paidService?: PaidServiceName } | undefined)?.paidService
  const page = request.server.paywall?.errorPage
  if (service !== undefined && page !== undefined && statusCode < 500 && wantsHtml(request.headers.accept)) {
    const answer = page(service, body)
    return reply.code(answer.statusCode).headers(answer.headers).send(answer.body)
  }
  return reply.code(statusCode).send(body)
}

/** Renders every failure in one JSON shape; 5xx never show their internal message. */
function handleError (thrown: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // Also for errors before a route's hooks ran (the not-found answer, a rate limit, a bad URL).
  setFixedHeaders(request, reply)
  const error = thrown.validation === undefined ? thrown : validationError(validationDetails(thrown))
  if (isAppError(error)) {
    if (error.statusCode >= 500) request.log.warn({ error: loggableError(error.cause ?? error), code: error.code }, 'request failed')
    if (error.headers !== undefined) reply.headers(error.headers)
    return sendError(request, reply, error.statusCode, error.code, error.message, error.details)
  }
  const statusCode = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  if (statusCode >= 500) {
    request.log.error({ error: loggableError(error) }, 'unhandled error')
    return sendError(request, reply, statusCode, 'INTERNAL_ERROR', 'Internal server error; quote the request id when reporting it')
  }
  return sendError(request, reply, statusCode, CODE_BY_STATUS.get(statusCode) ?? 'BAD_REQUEST', error.message)
}

// @fastify/sensible's error; the error handler renders it like every other 404.
function handleNotFound (request: FastifyRequest, reply: FastifyReply) {
  reply.notFound(`Route ${request.method} ${request.url.split('?')[0]} not found`)
}

/**
 * Errors Fastify meets before routing (a malformed percent-encoding, a path parameter over the
 * length limit): the one error shape with the fixed headers, without echoing the URL.
 */
export function handleFrameworkError (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
  const status = tooLong ? 414 : 400
  setFixedHeaders(request, reply)
  return reply.code(status).send(errorBody(request, status, tooLong ? 'URI_TOO_LONG' : 'BAD_REQUEST',
    tooLong ? 'The request target is too long' : 'The request target is not a valid URL (bad percent-encoding?)'))
}

/** Requests Node could not parse (too-large headers, broken HTTP): a complete answer on the socket, then close. */
export function handleClientError (error: ConnectionError, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  if (socket.writable) socket.write(connectionErrorResponse(error, newRequestId(), STATIC_HEADERS))
  socket.destroy(error)
}

/** The error and not-found handlers of the whole app: one JSON error shape, codes from one table. */
export default fp(async (fastify) => {
  fastify.decorateRequest('outcome', undefined)
  fastify.setErrorHandler(handleError)
  fastify.setNotFoundHandler(handleNotFound)
}, { name: 'error-handler', fastify: '5.x', dependencies: ['@fastify/sensible'] })
