/**
 * Failed x402 settlements by paying wallet (lib/x402/payer-failures.ts): kept in the store so the
 * budget survives a restart and every instance sharing the store counts the same failures. The
 * same on every engine; times are unix ms.
 */
export interface PayerFailureLog {
  /** Records one failed settlement of `payer` at `at`. */
  record (payer: string, at: number): Promise<void>
  /** The failures at or after `since`, oldest first, at most `limit` of them. */
  since (since: number, limit: number): Promise<Array<{ payer: string, at: number }>>
  /** Forgets the failures before `before`: past every window. */
  prune (before: number): Promise<void>
}
