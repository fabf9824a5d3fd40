/**
 * What a store operation throws when the database cannot answer (unreachable, restarting, full):
 * never the request's fault, and nothing was written. The store is told which error to throw
 * (`unavailable` of openStore: the service's 503 STORE_UNAVAILABLE); this one when it was not.
 */
export class StoreUnavailableError extends Error {
  constructor (cause: unknown) {
    super('The database is unavailable', { cause })
    this.name = 'StoreUnavailableError'
  }
}

/** Makes the error a store operation throws when the database cannot answer, from what the driver threw. */
export type UnavailableError = (cause: unknown) => Error

export const storeUnavailableError: UnavailableError = cause => new StoreUnavailableError(cause)
