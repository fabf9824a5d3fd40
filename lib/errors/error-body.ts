import { STATUS_CODES } from 'node:http'
import { AppError } from './app-error.js'
import type { ErrorCode } from './error-codes.js'

/** The one JSON shape of every error answer; details (e.g. `validation`) go beside the fixed fields. */
export interface ErrorBody {
  statusCode: number
  error: string
  message: string
  code: ErrorCode
  requestId: string
  [key: string]: unknown
}

export function errorBody (request: { id: string }, statusCode: number, code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody {
  return { ...details, statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, code, requestId: request.id }
}

/** One malformed input: where (`params`, `querystring`, `headers`, `body`), which field, what is wrong. */
export interface ValidationProblem {
  in: string
  path: string
  message: string | undefined
}

/** A 400 VALIDATION_ERROR naming every problem, in the message and as `validation`. */
export function validationError (problems: ValidationProblem[]): AppError {
  const message = problems.map(p => `${p.in}${p.path === '' ? '' : `.${p.path}`} ${p.message}`).join('; ')
  return new AppError('VALIDATION_ERROR', message, { details: { validation: problems } })
}
