import { isAppError } from '../errors/app-error.js'
import { errorBody, type ErrorBody } from '../errors/error-body.js'
import { loggableError } from '../errors/loggable-error.js'

interface ToolLogger {
  warn: (details: object, message: string) => void
  error: (details: object, message: string) => void
}

/**
 * A tool's failure as the common error body, as the HTTP error handler renders it: an AppError
 * keeps its code, status and details; anything else is a bug, logged, and shown as INTERNAL_ERROR
 * with no internal message.
 */
export function toolErrorBodies (request: { id: string }, log: ToolLogger): (error: unknown) => ErrorBody {
  return (error) => {
    if (isAppError(error)) {
      if (error.statusCode >= 500) log.warn({ error: loggableError(error.cause ?? error), code: error.code }, 'MCP tool failed')
      return errorBody(request, error.statusCode, error.code, error.message, error.details)
    }
    log.error({ error: loggableError(error) }, 'unhandled error in an MCP tool')
    return errorBody(request, 500, 'INTERNAL_ERROR', 'Internal server error; quote the request id when reporting it')
  }
}
