import type { RegisteredAgentBody } from '../../schemas/registry.js'

/** Which registry: the same address on two clusters is two registries. */
export interface RegistryKey {
  network: string
  registryAddress: string
}

/** A registration as found by a read, with its place in chain order. */
export interface FoundRegistration {
  signature: string
  name: string
  manifestUrl: string
  wallet: string
  blockTime: number | null
  slot: number
  /** Number of the read that found it, and its position in that read's listing (0 = newest). */
  run: number
  position: number
}

/** A read cut short, and where it picks up again. */
export interface ScanResume {
  /** Newest signature of the interrupted read: it becomes the cursor once the read completes. */
  top: string
  /** Oldest signature already handled: the `before` of the next page. */
  before: string
  /** Listing position of the next entry. */
  position: number
}

export interface ScanState {
  /** Everything up to this signature is stored: the `until` of the next read. */
  newestSignature: string | null
  /** ISO time of the last complete read; null while none ever completed. */
  fetchedAt: string | null
  /** Number of the latest read started. */
  run: number
  resume: ScanResume | null
}

/** What a batch of work moved the cursor to: still reading, or done. */
export type ScanProgress =
  | { kind: 'partial', run: number, resume: ScanResume }
  | { kind: 'complete', run: number, newestSignature: string | null, fetchedAt: string }

export interface AgentFilters {
  wallet?: string
  name?: string
}

/** The registry cache and its scan cursor, the same on every engine. */
export interface RegistryRepository {
  scanState (key: RegistryKey): Promise<ScanState>
  /** Stores registrations and moves the cursor in one transaction: a crash keeps both or neither. */
  saveProgress (key: RegistryKey, registrations: readonly FoundRegistration[], progress: ScanProgress): Promise<void>
  /** Registrations newest first; `name` matches whole names, ignoring ASCII case. */
  listAgents (key: RegistryKey, filters?: AgentFilters): Promise<RegisteredAgentBody[]>
}

/** A registry_scans row as both engines return it. */
export interface ScanRow {
  newest_signature: string | null
  fetched_at: string | null
  scan_run: number
  resume_top: string | null
  resume_before: string | null
  resume_position: number | null
}

/** The scan state a row (or no row yet) stands for: a resume point only when all three parts are set. */
export function scanStateOf (row: ScanRow | undefined): ScanState {
  if (row === undefined) return { newestSignature: null, fetchedAt: null, run: 0, resume: null }
  const resume = row.resume_top !== null && row.resume_before !== null && row.resume_position !== null
    ? { top: row.resume_top, before: row.resume_before, position: row.resume_position }
    : null
  return { newestSignature: row.newest_signature, fetchedAt: row.fetched_at, run: row.scan_run, resume }
}
