import { statusOf, type ErrorCode } from './error-codes.js'

/**
 * The one error type our own code throws. The error handler renders it as
 * `{ statusCode, error, message, code, requestId, ...details }`, so every route answers
 * failures in one shape with a stable `code`; the status comes from the code's table entry.
 */
export class AppError extends Error {
  readonly statusCode: number
  readonly code: ErrorCode
  readonly details?: Record<string, unknown>
  readonly headers?: Record<string, string>

  constructor (
    code: ErrorCode,
    message: string,
    extra: { details?: Record<string, unknown>, headers?: Record<string, string>, cause?: unknown } = {}
  ) {
    super(message, { cause: extra.cause })
    this.name = 'AppError'
    this.statusCode = statusOf(code)
    this.code = code
    this.details = extra.details
    this.headers = extra.headers
  }
}

export function isAppError (error: unknown): error is AppError {
  return error instanceof AppError
}
