import type { ConnectionDrain } from '../http/connection-drain.js'
import type { ClaimLedger } from './claim-ledger.js'

interface StopLog {
  info: (details: object, message: string) => void
  warn: (details: object, message: string) => void
}

export interface GracefulStopOptions {
  drain: ConnectionDrain
  claims: ClaimLedger
  graceMs: number
  /** Closes the app (its onClose hooks: the database, upstream pools, timers). */
  closeApp: () => Promise<void>
  log: StopLog
}

/**
 * The stop sequence: not ready and not accepting at once, in-flight requests answered (with
 * `Connection: close`) within the grace, what remains cut, the claims of cut requests given
 * back so their proofs work again at once, then the app closed.
 */
export async function gracefulStop ({ drain, claims, graceMs, closeApp, log }: GracefulStopOptions): Promise<void> {
  drain.begin()
  const drained = await drain.settle(graceMs)
  if (!drained) {
    log.warn({ graceMs, inFlight: drain.inFlight(), connections: drain.open }, 'close grace ran out: closing the connections left')
    drain.destroyAll()
  }
  const released = await claims.releaseAll()
  if (released > 0) {
    log.warn({ released }, 'released the payment claims of requests that could not finish: their proofs can be used again now')
  }
  await closeApp()
}
