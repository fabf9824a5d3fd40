import { randomBytes } from 'node:crypto'

const REQUEST_ID = /^[\w.:-]{1,128}$/
// A random prefix per process and a counter: unique across the workers of a cluster, and
// cheaper than a UUID per request.
const REQUEST_ID_PREFIX = randomBytes(6).toString('hex')
let requestCounter = 0

/** A new request id. */
export function newRequestId (): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER
  return `${REQUEST_ID_PREFIX}-${requestCounter.toString(36)}`
}

/** Accepts a caller's x-request-id when it is sane, so one id follows a call across services. */
export function requestIdOf (headers: Record<string, string | string[] | undefined>): string {
  const incoming = headers['x-request-id']
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newRequestId()
}
