import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { isAppError } from '../../lib/errors/app-error.js'
import { CODE_BY_STATUS, type ErrorCode } from '../../lib/errors/error-codes.js'
import { loggableError } from '../../lib/errors/loggable-error.js'

interface ErrorBody {
  statusCode: number
  error: string
  message: string
  code: ErrorCode
  requestId: string
  [key: string]: unknown
}

export function errorBody (request: FastifyRequest, statusCode: number, code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody {
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
  return reply.code(statusCode).send(errorBody(request, statusCode, CODE_BY_STATUS.get(statusCode) ?? 'BAD_REQUEST', error.message))
}

export function handleNotFound (request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(errorBody(request, 404, 'NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`))
}
