import { AppError } from './app-error.js'

export const STORE_RETRY_AFTER_SECONDS = 2

/** The 503 a client sees when the database cannot answer: nothing was consumed, nothing about the database leaks. */
export function storeUnavailable (cause: unknown): AppError {
  return new AppError('STORE_UNAVAILABLE', 'The database is unavailable; nothing was charged or recorded, retry shortly with the same proof', {
    cause,
    headers: { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) },
    details: { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS }
  })
}
