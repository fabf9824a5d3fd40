import type { IncomingHttpHeaders } from 'node:http'
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino'

/** What the request serializer reads of a request (a Fastify request has it all; lib/ names no Fastify type). */
interface LoggedRequest {
  method: string
  url: string
  headers?: IncomingHttpHeaders
  host?: string
  ip?: string
  socket?: { remotePort?: number }
}

/**
 * The request and answer as a log line shows them: what Fastify's own logger writes, since
 * Fastify runs without one (app.ts says why).
 */
const serializers = {
  req: (request: LoggedRequest) => ({
    method: request.method,
    url: request.url,
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort
  }),
  res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
  err: pino.stdSerializers.err
}

/** The process's one pino logger: NDJSON at LOG_LEVEL, credentials never written. */
export function createServiceLogger (level: LoggerOptions['level'], stream?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    serializers,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], censor: '[redacted]' }
  }
  return stream === undefined ? pino(options) : pino(options, stream)
}
