import type { AuditLog } from './contracts/audit-log.js'
import type { PaymentClaims } from './contracts/payment-claims.js'
import type { Store } from './store.js'

/** Told how long each timed store call took (a failed one too), as `claims.<method>` or `audit.record`. */
export type StoreObserver = (operation: string, durationMs: number) => void

/**
 * The same store with its payment claims and its audit record timed: `claims` and `audit` are new
 * objects that call the engine's and report each call to `observe`; every other part and property
 * (the SQLite `db`, the PostgreSQL `pool`) is the engine's own. The engine's objects are not
 * changed, so the store the app holds is the only one that times.
 */
export function timedStore<S extends Store> (store: S, observe: StoreObserver): S {
  const time = <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    const startedAt = performance.now()
    return call().finally(() => observe(operation, performance.now() - startedAt))
  }
  const { claims, audit } = store
  const timedClaims: PaymentClaims = {
    status: (...args) => time('claims.status', () => claims.status(...args)),
    claim: (...args) => time('claims.claim', () => claims.claim(...args)),
    markSent: (...args) => time('claims.markSent', () => claims.markSent(...args)),
    renew: (...args) => time('claims.renew', () => claims.renew(...args)),
    redeem: (...args) => time('claims.redeem', () => claims.redeem(...args)),
    release: (...args) => time('claims.release', () => claims.release(...args)),
    discard: (...args) => time('claims.discard', () => claims.discard(...args)),
    releaseSource: (...args) => time('claims.releaseSource', () => claims.releaseSource(...args)),
    keptAnswer: (...args) => time('claims.keptAnswer', () => claims.keptAnswer(...args)),
    claimOfPaymentId: (...args) => time('claims.claimOfPaymentId', () => claims.claimOfPaymentId(...args)),
    cancelCall: (...args) => time('claims.cancelCall', () => claims.cancelCall(...args)),
    pruneAnswers: (...args) => claims.pruneAnswers(...args)
  }
  const timedAudit: AuditLog = {
    record: (...args) => time('audit.record', () => audit.record(...args)),
    countUnpaid: (...args) => audit.countUnpaid(...args),
    flushUnpaid: () => audit.flushUnpaid(),
    prune: (...args) => audit.prune(...args)
  }
  return { ...store, claims: timedClaims, audit: timedAudit }
}
