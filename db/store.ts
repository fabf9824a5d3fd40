import type { A2aTaskRepository } from './contracts/a2a-tasks.js'
import type { AuditLog } from './contracts/audit-log.js'
import type { DeliveryEvidence } from './contracts/delivery-evidence.js'
import type { LaunchFactsRepository } from './contracts/launch-facts.js'
import type { PaymentClaims } from './contracts/payment-claims.js'
import type { RegistryRepository } from './contracts/registry-repository.js'
import type { ReputationQueries } from './contracts/reputation-queries.js'
import type { ServiceSecrets } from './contracts/service-secrets.js'
import type { PayerFailureLog } from './contracts/payer-failures.js'
import type { Refunds } from './contracts/refunds.js'
import type { LimitCountLog } from './contracts/limit-counts.js'

export type StoreEngine = 'sqlite' | 'postgres'

/**
 * Everything the service stores, behind one interface with two engines: the SQLite file (one
 * machine, any number of processes) or PostgreSQL (several machines). Chosen once at start;
 * routes, the payment gate and the services never know which one runs. Every call returns a
 * Promise (SQLite is synchronous underneath), except the in-memory `audit.countUnpaid`.
 */
export interface Store {
  readonly engine: StoreEngine
  readonly claims: PaymentClaims
  readonly audit: AuditLog
  readonly registry: RegistryRepository
  readonly reputation: ReputationQueries
  /** The verified payments behind the reputation, page by page (GET /reputation/deliveries). */
  readonly deliveries: DeliveryEvidence
  /** A2A tasks, stored once paid (lib/doors/a2a/). */
  readonly a2aTasks: A2aTaskRepository
  /** Launch facts of analysed mints (lib/token-analysis/launch/). */
  readonly launchFacts: LaunchFactsRepository
  /** Secrets every instance sharing the store agrees on (the MPP challenge key). */
  readonly secrets: ServiceSecrets
  /** Failed x402 settlements by paying wallet, the fee payer's budget across restarts and instances. */
  readonly payerFailures: PayerFailureLog
  /** The busiest clients' request and failure counts per instance: one limit for every instance sharing the store. */
  readonly limitCounts: LimitCountLog
  /** Refunds of payments never delivered, exclusive with their redemption (lib/refunds/). */
  readonly refunds: Refunds
  /** True when the database answers a trivial query now. */
  isHealthy (): Promise<boolean>
  /**
   * Runs `task` while holding the lock `name`, shared by every process and machine using this
   * store: callers queue, one at a time (the registry's chain read is single-flight this way).
   */
  exclusive<T> (name: string, task: () => Promise<T>): Promise<T>
  close (): Promise<void>
}
