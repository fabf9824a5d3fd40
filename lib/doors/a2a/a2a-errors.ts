import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors'
import { isAppError } from '../../errors/app-error.js'
import { loggableError } from '../../errors/loggable-error.js'

/**
 * Errors as A2A answers them (JSON-RPC errors): the SDK's own error types, with our stable code
 * in `ErrorInfo.metadata.code` and first in the message, and never an internal message.
 */

/** A message we cannot read (-32602): the message says what was expected. */
export function malformed (message: string): A2AError {
  return new RequestMalformedError({ message, metadata: { code: 'VALIDATION_ERROR' } })
}

export function isA2aError (error: unknown): error is A2AError {
  return error instanceof A2AError
}

/** Any error thrown while handling a call, as the A2A error to answer: ours keep their code, bugs are logged and answered without their text. */
export function asA2aError (error: unknown, log: { error: (details: object, message: string) => void }): A2AError {
  if (isA2aError(error)) return error
  if (isAppError(error)) {
    const message = `${error.code}: ${error.message}`
    const retryAfter = error.headers?.['retry-after']
    const metadata = { code: error.code, ...(retryAfter === undefined ? {} : { retryAfterSeconds: String(retryAfter) }) }
    return error.statusCode < 500 ? new RequestMalformedError({ message, metadata }) : new A2AError({ message, metadata })
  }
  log.error({ error: loggableError(error) }, 'unhandled error in the A2A door')
  return new A2AError({ message: 'INTERNAL_ERROR: Internal server error; quote the request id when reporting it', metadata: { code: 'INTERNAL_ERROR' } })
}
