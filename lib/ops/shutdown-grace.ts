/**
 * How long a paid request can take at worst, from the timeouts that bound each of its steps. The
 * shutdown grace must cover it, or a stop cuts requests that would have finished (and strands
 * their proofs until the lease runs out).
 */
import type { HandlerTimeouts, Product } from '../catalogue/product.js'

/** The timeouts that bound a paid request, as configured. */
export interface PaidRequestTimeouts extends HandlerTimeouts {
  /** RPC_TIMEOUT_MS: one call to the payment RPC. */
  rpcTimeoutMs: number
  /** PAYMENT_NOT_FOUND_WAIT_MS: how long verification polls for a just-sent transaction. */
  notFoundWaitMs: number
  /** X402_SETTLEMENT_TIMEOUT_MS: how long an x402 settlement waits for its confirmation. */
  settlementTimeoutMs: number
}

export interface GracePhase {
  name: string
  ms: number
}

/** Room for the work between the timed steps (parsing, the store, writing the answer). */
export const GRACE_MARGIN_MS = 1000

/**
 * The steps of the longest paid request, in order; their sum is its worst-case duration. A new
 * step (settling an x402 payment, say) is one more entry here.
 */
export function paidRequestPhases (timeouts: PaidRequestTimeouts, products: readonly Product[]): GracePhase[] {
  return [
    // getTransaction at the RPC timeout, after polling for a transaction not yet visible.
    { name: 'verification', ms: timeouts.rpcTimeoutMs + timeouts.notFoundWaitMs },
    // The slowest product's handler, by its entry's budget.
    { name: 'handler', ms: Math.max(0, ...products.map(product => product.handlerBudgetMs(timeouts))) },
    // x402 only: the co-signed transaction sent (one RPC call), then its confirmation awaited.
    { name: 'settlement', ms: timeouts.rpcTimeoutMs + timeouts.settlementTimeoutMs }
  ]
}

export function longestPaidRequestMs (phases: GracePhase[]): number {
  return phases.reduce((sum, phase) => sum + phase.ms, 0)
}

/** The grace used when CLOSE_GRACE_MS is unset: the longest paid request and a margin. */
export function derivedCloseGraceMs (phases: GracePhase[]): number {
  return longestPaidRequestMs(phases) + GRACE_MARGIN_MS
}

/**
 * The claim of a payment is held from after verification to the end of settlement: the lease must
 * cover that much of the longest paid request, or a holder still working could see its payment
 * taken over (it is renewed while the holder works; the lease is what a crashed holder leaves behind).
 */
export function leaseProblem (leaseSeconds: number, phases: GracePhase[]): string | undefined {
  const held = phases.filter(phase => phase.name !== 'verification')
  const longest = longestPaidRequestMs(held)
  if (leaseSeconds * 1000 >= longest) return undefined
  return `PAYMENT_LEASE_SECONDS: ${leaseSeconds} s is shorter than a paid request holds its payment, ${longest} ms (${describePhases(held)}); ` +
    'raise it or lower those timeouts'
}

/** "verification 10000 + handler 20000": how a grace figure was reached, for messages. */
export function describePhases (phases: GracePhase[]): string {
  return phases.map(phase => `${phase.name} ${phase.ms}`).join(' + ')
}

/**
 * The close grace to use, or the reason a configured one is refused: a grace shorter than the
 * longest paid request would cut requests that are still within their timeouts.
 */
export function resolveCloseGrace (configured: number | undefined, phases: GracePhase[]): { ms: number } | { problem: string } {
  if (configured === undefined) return { ms: derivedCloseGraceMs(phases) }
  const longest = longestPaidRequestMs(phases)
  if (configured >= longest) return { ms: configured }
  return {
    problem: `CLOSE_GRACE_MS: ${configured} is shorter than the longest paid request, ${longest} ms (${describePhases(phases)}); ` +
      'raise it, lower those timeouts, or leave it unset to derive it'
  }
}

/**
 * Under PM2 the worker's environment carries the app's kill_timeout: PM2 sends SIGKILL when it
 * runs out, so it must outlast the shutdown's deadline (grace + SHUTDOWN_TAIL_MS), or the drain is cut short.
 */
export function killTimeoutProblem (env: NodeJS.ProcessEnv, deadlineMs: number): string | undefined {
  if (env.pm_id === undefined || env.kill_timeout === undefined) return undefined
  const killTimeout = Number(env.kill_timeout)
  if (!Number.isFinite(killTimeout) || killTimeout > deadlineMs) return undefined
  return `PM2 kill_timeout (${killTimeout} ms) must be longer than the close grace and the steps after it (${deadlineMs} ms), ` +
    'or PM2 kills workers before in-flight requests finish; raise kill_timeout (PM2_KILL_TIMEOUT_MS for ecosystem.config.cjs) or lower CLOSE_GRACE_MS'
}

/**
 * After the grace: cutting what is left, giving back claims, closing the database and flushing
 * the logs. The process's own deadline is the grace plus this; PM2's kill_timeout must exceed both.
 */
export const SHUTDOWN_TAIL_MS = 3000

/**
 * Why a catalogue's products do not fit the configured close grace and payment lease (a product
 * slower than those the configuration was checked against): none when they fit.
 */
export function catalogueTimeProblems (configured: { closeGraceMs: number, leaseSeconds: number }, phases: GracePhase[]): string[] {
  const problems: string[] = []
  const longest = longestPaidRequestMs(phases)
  if (configured.closeGraceMs < longest) {
    problems.push(`CLOSE_GRACE_MS: the close grace, ${configured.closeGraceMs} ms, is shorter than the longest paid request of the products sold, ${longest} ms ` +
      `(${describePhases(phases)}); set CLOSE_GRACE_MS to cover it`)
  }
  const lease = leaseProblem(configured.leaseSeconds, phases)
  if (lease !== undefined) problems.push(lease)
  return problems
}
