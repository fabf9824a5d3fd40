import type { PaymentClaims } from './contracts/payment-claims.js'
import type { Refunds } from './contracts/refunds.js'
import type { Store } from './store.js'

/** The time in milliseconds since the epoch, as `Date.now()` reads it. */
export type Clock = () => number

/**
 * The same store with its payment claims read on `now` wherever a call leaves its time out (leases,
 * kept answers, their pruning, the refunds' window and leases), instead of the engine's own clock (Date.now() on SQLite, the
 * server's on PostgreSQL): a test turns it to let a lease run out instead of waiting for it. A
 * call that names its time keeps it. Every other part is the engine's own.
 */
export function clockedStore<S extends Store> (store: S, now: Clock): S {
  const { claims } = store
  const clockedClaims: PaymentClaims = {
    ...bound(claims),
    claim: async (request) => await claims.claim({ ...request, now: request.now ?? now() }),
    markSent: async (request) => await claims.markSent({ ...request, now: request.now ?? now() }),
    renew: async (signature, claimId, leaseMs, at = now()) => await claims.renew(signature, claimId, leaseMs, at),
    redeem: async (request) => await claims.redeem({ ...request, now: request.now ?? now() }),
    keptAnswer: async (signature, at = now()) => await claims.keptAnswer(signature, at),
    pruneAnswers: async (at = now(), batchSize) => await claims.pruneAnswers(at, batchSize),
    release: async (signature, claimId, at = now()) => await claims.release(signature, claimId, at)
  }
  const { refunds } = store
  const clockedRefunds: Refunds = {
    begin: async (request) => await refunds.begin({ ...request, now: request.now ?? now() }),
    get: refunds.get.bind(refunds),
    markSent: refunds.markSent.bind(refunds),
    decide: async (payment, signature, outcome, at = now()) => await refunds.decide(payment, signature, outcome, at),
    takeOver: async (payment, holder, leaseMs, at = now()) => await refunds.takeOver(payment, holder, leaseMs, at),
    unsettled: async (limit, at = now()) => await refunds.unsettled(limit, at)
  }
  return { ...store, claims: clockedClaims, refunds: clockedRefunds }
}

function bound (claims: PaymentClaims): PaymentClaims {
  return {
    status: claims.status.bind(claims),
    claim: claims.claim.bind(claims),
    markSent: claims.markSent.bind(claims),
    renew: claims.renew.bind(claims),
    redeem: claims.redeem.bind(claims),
    keptAnswer: claims.keptAnswer.bind(claims),
    claimOfPaymentId: claims.claimOfPaymentId.bind(claims),
    cancelCall: claims.cancelCall.bind(claims),
    pruneAnswers: claims.pruneAnswers.bind(claims),
    release: claims.release.bind(claims),
    discard: claims.discard.bind(claims),
    releaseSource: claims.releaseSource.bind(claims)
  }
}
