import pg from 'pg'
import { storeUnavailableError, type UnavailableError } from '../contracts/store-unavailable.js'

const INT8_OID = 20
const CONNECT_TIMEOUT_MS = 5000

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED'])
// SQLSTATEs of a server that is going away, starting or full: class 08 (connection exception),
// admin/crash shutdown, cannot connect now, too many connections, out of memory or disk.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53200', '53100', '58000', '58030'])
// Wrong credentials, database or role: waiting will not fix them.
const FATAL_SQLSTATES = new Set(['28P01', '28000', '3D000', '42501'])

/** True when the error says the database cannot be reached or cannot serve now (never the request's fault). */
export function isConnectionError (error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true
    const message = (e as { message?: unknown }).message
    // node-postgres's own words for a socket that closed or a pool that could not connect in time.
    if (typeof message === 'string' && /^Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i.test(message)) return true
  }
  return false
}

/** True when the configuration is wrong (authentication, unknown database or role): exit, do not wait. */
export function isFatalConnectionError (error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && FATAL_SQLSTATES.has(code)
}

/** Runs a database call; an unreachable database throws `unavailable`'s error (the service answers it as the 503 STORE_UNAVAILABLE). */
export type DatabaseCall = <T>(call: () => Promise<T>) => Promise<T>

export function databaseCall (unavailable: UnavailableError = storeUnavailableError): DatabaseCall {
  return async (call) => {
    try {
      return await call()
    } catch (error) {
      if (isConnectionError(error)) throw unavailable(error)
      throw error
    }
  }
}

/**
 * A pool of `size` connections. int8 columns (unix ms, slots, counts) are read as numbers; numeric
 * (amounts, revenue) stays text, turned into bigint by the caller. An idle connection that breaks
 * (the server restarted) is logged and replaced, never fatal.
 */
export function createPool (url: string, size: number, onIdleError: (error: Error) => void, serverOptions?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    ...(serverOptions === undefined ? {} : { options: serverOptions }),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: 'token-merchant',
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => oid === INT8_OID
        ? (value: string) => Number(value)
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
    }
  })
  pool.on('error', onIdleError)
  return pool
}
