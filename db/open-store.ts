import { setTimeout as sleep } from 'node:timers/promises'
import { maskDatabaseUrl } from './database-url.js'
import { isConnectionError, isFatalConnectionError } from './postgres/connection.js'
import { openPostgresStore } from './postgres/postgres-store.js'
import { createSqliteStore } from './sqlite/sqlite-store.js'
import type { Store } from './store.js'
import { timedStore, type StoreObserver } from './timed-store.js'
import { clockedStore, type Clock } from './clocked-store.js'
import type { UnavailableError } from './contracts/store-unavailable.js'

export interface StoreSettings {
  DATABASE_URL?: string
  DATABASE_PATH: string
  DATABASE_POOL_SIZE: number
  /** How long start-up waits for an unreachable PostgreSQL; 0 (or unset) waits as long as it takes. */
  DATABASE_CONNECT_TIMEOUT_SECONDS?: number
  SQLITE_SYNCHRONOUS: 'NORMAL' | 'FULL'
}

export interface OpenStoreOptions {
  /** Stops the waiting for PostgreSQL (shutdown during start). */
  signal?: AbortSignal
  /** Told the duration of each payment-claim operation and audit record (metrics); nothing is timed without it. */
  observe?: StoreObserver
  /** The error an operation throws when the database cannot answer: the service's 503 STORE_UNAVAILABLE (StoreUnavailableError without it). */
  unavailable?: UnavailableError
  /** The clock the payment claims' leases and kept answers are read on (clocked-store.ts); the engine's own without it. */
  now?: Clock
}

export interface StoreLogger {
  info (details: object, message: string): void
  warn (details: object, message: string): void
  /** An error as a log line shows it (the service's summary: no credentials, no frozen contexts); its message alone without it. */
  loggable?: (error: unknown) => object
}

const FIRST_RETRY_MS = 500
const LONGEST_RETRY_MS = 10_000

/** A start-up failure that waiting will not cure: wrong password, unknown database or role. */
export class StoreConfigurationError extends Error {
  constructor (message: string, options: { cause: unknown }) {
    super(message, options)
    this.name = 'StoreConfigurationError'
  }
}

function reason (error: unknown): string {
  const { code, message } = error as { code?: unknown, message?: unknown }
  return typeof code === 'string' ? `${code}: ${String(message)}` : String(message)
}

/**
 * Chooses the engine once: PostgreSQL when DATABASE_URL is set, else the SQLite file. PostgreSQL
 * that cannot be reached is waited for (backing off up to 10 s, one log line per attempt, the
 * password masked) for up to DATABASE_CONNECT_TIMEOUT_SECONDS; wrong credentials or database, or
 * the wait running out, throw StoreConfigurationError.
 * With `observe`, the store comes back with its claims and audit record timed (timed-store.ts).
 */
export async function openStore (settings: StoreSettings, log: StoreLogger, options: OpenStoreOptions = {}): Promise<Store> {
  const engine = await openEngine(settings, log, options)
  const store = options.now === undefined ? engine : clockedStore(engine, options.now)
  return options.observe === undefined ? store : timedStore(store, options.observe)
}

async function openEngine (settings: StoreSettings, log: StoreLogger, { signal, unavailable }: OpenStoreOptions): Promise<Store> {
  if (settings.DATABASE_URL === undefined) {
    return createSqliteStore(settings.DATABASE_PATH, {
      synchronous: settings.SQLITE_SYNCHRONOUS,
      checkpointFailed: message => log.warn({ error: message }, 'SQLite WAL checkpoint failed; the next one, in a second, tries again')
    })
  }
  const url = settings.DATABASE_URL
  const masked = maskDatabaseUrl(url)
  const waitMs = (settings.DATABASE_CONNECT_TIMEOUT_SECONDS ?? 0) * 1000
  const giveUpAt = waitMs === 0 ? Infinity : Date.now() + waitMs
  for (let attempt = 1, delay = FIRST_RETRY_MS; ; attempt++, delay = Math.min(delay * 2, LONGEST_RETRY_MS)) {
    try {
      const store = await openPostgresStore({
        url,
        poolSize: settings.DATABASE_POOL_SIZE,
        unavailable,
        onIdleError: error => log.warn({ error: log.loggable?.(error) ?? { message: reason(error) } }, 'a PostgreSQL connection broke; it is replaced on next use')
      })
      log.info({ database: masked, poolSize: settings.DATABASE_POOL_SIZE }, 'store: PostgreSQL (DATABASE_URL)')
      return store
    } catch (error) {
      // A host name that does not exist is a wrong URL too (EAI_AGAIN, a DNS hiccup, is waited for).
      if (isFatalConnectionError(error) || (error as { code?: unknown }).code === 'ENOTFOUND') {
        throw new StoreConfigurationError(`DATABASE_URL ${masked}: ${reason(error)}`, { cause: error })
      }
      if (!isConnectionError(error)) throw error
      if (Date.now() + delay > giveUpAt) {
        throw new StoreConfigurationError(`DATABASE_URL ${masked}: still unreachable after ${settings.DATABASE_CONNECT_TIMEOUT_SECONDS} s ` +
          `(DATABASE_CONNECT_TIMEOUT_SECONDS): ${reason(error)}`, { cause: error })
      }
      log.warn({ database: masked, attempt, retryInMs: delay, error: reason(error) },
        `PostgreSQL at DATABASE_URL ${masked} is unreachable; not ready, retrying`)
      await sleep(delay, undefined, { signal })
    }
  }
}
