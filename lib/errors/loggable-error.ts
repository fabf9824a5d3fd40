/**
 * A plain summary of an error for the log. @solana/kit errors carry a frozen `context`
 * that pino's error serializer cannot tag (it throws inside the error handler), and a
 * summary also keeps RPC URLs and payloads out of the log.
 */
export function loggableError (error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) }
  const context = (error as { context?: { __code?: unknown, statusCode?: unknown } }).context
  const code = (error as { code?: unknown }).code
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(context?.__code !== undefined ? { solanaErrorCode: context.__code } : {}),
    ...(typeof context?.statusCode === 'number' ? { httpStatus: context.statusCode } : {}),
    ...(error.cause !== undefined ? { cause: loggableError(error.cause) } : {}),
    ...(error.stack !== undefined ? { stack: error.stack } : {})
  }
}
