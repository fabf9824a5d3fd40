import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { isAppError } from '../../lib/errors/app-error.js'
import { loggableError } from '../../lib/errors/loggable-error.js'

/** Stable codes for the errors Fastify and its plugins raise themselves. */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
  503: 'SERVICE_UNAVAILABLE'
}

interface ErrorBody {
  statusCode: number
  error: string
  message: string
  code: string
  requestId: string
  [key: string]: unknown
}

export function errorBody (request: FastifyRequest, statusCode: number, code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  return { ...details, statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, code, requestId: request.id }
}

function validationDetails (error: FastifyError) {
  return (error.validation ?? []).map(v => ({
    in: error.validationContext,
    path: v.instancePath === '' ? (v.params as { missingProperty?: string }).missingProperty ?? '' : v.instancePath.slice(1).replaceAll('/', '.'),
    message: v.message
  }))
}

/** Renders every failure in one JSON shape; 5xx never show their internal message. */
export function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (isAppError(error)) {
    if (error.statusCode >= 500) request.log.warn({ error: loggableError(error.cause ?? error), code: error.code }, 'request failed')
    if (error.headers !== undefined) reply.headers(error.headers)
    return reply.code(error.statusCode).send(errorBody(request, error.statusCode, error.code, error.message, error.details))
  }
  if (error.validation !== undefined) {
    const problems = validationDetails(error)
    const message = problems.map(p => `${p.in}${p.path === '' ? '' : `.${p.path}`} ${p.message}`).join('; ')
    return reply.code(400).send(errorBody(request, 400, 'VALIDATION_ERROR', message, { validation: problems }))
  }
  const statusCode = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  if (statusCode >= 500) {
    request.log.error({ error: loggableError(error) }, 'unhandled error')
    return reply.code(statusCode).send(errorBody(request, statusCode, 'INTERNAL_ERROR', 'Internal server error; quote the request id when reporting it'))
  }
  return reply.code(statusCode).send(errorBody(request, statusCode, CODE_BY_STATUS[statusCode] ?? 'BAD_REQUEST', error.message))
}

export function handleNotFound (request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(errorBody(request, 404, 'NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`))
}
