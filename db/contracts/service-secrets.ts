/**
 * Secrets the service makes itself at first start and every instance sharing the store must agree
 * on (the HMAC key that binds MPP challenges, lib/mpp/). The same on every engine: one row per
 * name; the first write wins, so two instances starting at once both read the one kept.
 */
export interface ServiceSecrets {
  /** The secret kept under `name`; `made` is kept first when there is none yet (one atomic statement). */
  getOrKeep (name: string, made: string): Promise<string>
}
