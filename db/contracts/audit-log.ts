/** How a request was paid (shared contract 2): pay-then-prove headers, x402 v1 or v2, an MCP tool call, or an A2A task. */
export type AuditFlow = 'proof' | 'x402-v1' | 'x402-v2' | 'mcp' | 'a2a' | 'mpp'

export interface AuditEntry {
  at?: number
  requestId: string
  service: string
  resource: string
  payer?: string
  signature?: string
  amount?: bigint
  outcome: string
  verified: boolean
  status: number
  latencyMs: number
  /** 'proof' when omitted. */
  flow?: AuditFlow
}

/**
 * Whether a delivered payment's kept answer reached its buyer, recorded with its audit row. A
 * kept answer once reached stays reached.
 */
export interface AnswerFate {
  /** true: the HTTP answer finished, or the MCP result was written; false: the client left first. */
  reached: boolean
  /**
   * It reached the buyer as a re-delivery, a call of its own, so an earlier cancel of the call that
   * paid no longer makes it "not reached" (the answer is used from then on). The paying call's own
   * mark leaves a cancel standing: a cancel may reach another instance before that call's answer went out.
   */
  redelivered?: boolean
}

/** The audit trail of verified payments and the counters of unpaid requests, the same on every engine. */
export interface AuditLog {
  /**
   * Records how a request ended. A payment (an entry with a signature) has one row: a later
   * attempt with the same payment replaces it, keeping the time of the first, so replays never
   * add rows nor move the reputation figures by more than one payment. With `fate`, the payment's
   * kept answer (if it has one) is marked reached or not in the same atomic operation: the writes
   * after an answer are one store operation.
   */
  record (entry: AuditEntry, fate?: AnswerFate): Promise<void>
  /** Counts a request that paid nothing, in memory (no database write; synchronous on purpose). */
  countUnpaid (service: string, outcome: string, at?: number): void
  /** Writes the unpaid requests counted since the last flush. */
  flushUnpaid (): Promise<void>
  /** Deletes what is older than the retention period, at most batchSize audit rows; returns how many audit rows went. */
  prune (retentionDays: number, now?: number, batchSize?: number): Promise<number>
}
