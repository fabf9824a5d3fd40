import type { SqliteDatabase } from './open-database.js'
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

/** Registrations and the scan cursor, kept together so that one transaction moves both. */
export function createRegistryRepository (db: SqliteDatabase): RegistryRepository {
  const selectScan = db.prepare<[string, string], ScanRow>(`
    SELECT newest_signature, fetched_at, scan_run, resume_top, resume_before, resume_position
    FROM registry_scans WHERE network = ? AND registry_address = ?`)
  const insertAgent = db.prepare(`
    INSERT INTO registry_agents (network, registry_address, signature, name, manifest_url, wallet, block_time, slot, scan_run, scan_position)
    VALUES (@network, @registryAddress, @signature, @name, @manifestUrl, @wallet, @blockTime, @slot, @run, @position)
    ON CONFLICT DO NOTHING`)
  const upsertScan = db.prepare(`
    INSERT INTO registry_scans (network, registry_address, newest_signature, fetched_at, scan_run, resume_top, resume_before, resume_position)
    VALUES (@network, @registryAddress, @newestSignature, @fetchedAt, @run, @top, @before, @position)
    ON CONFLICT (network, registry_address) DO UPDATE SET
      newest_signature = CASE WHEN @complete THEN excluded.newest_signature ELSE registry_scans.newest_signature END,
      fetched_at = CASE WHEN @complete THEN excluded.fetched_at ELSE registry_scans.fetched_at END,
      scan_run = max(registry_scans.scan_run, excluded.scan_run),
      resume_top = excluded.resume_top, resume_before = excluded.resume_before, resume_position = excluded.resume_position`)

  const listAgents = db.prepare<Record<string, string | null>, RegisteredAgentBody>(`
    SELECT name, manifest_url, wallet, signature, block_time AS timestamp
    FROM registry_agents
    WHERE network = @network AND registry_address = @registryAddress
      AND (@wallet IS NULL OR wallet = @wallet)
      AND (@name IS NULL OR name = @name COLLATE NOCASE)
    ORDER BY slot DESC, scan_run DESC, scan_position`)

  const save = db.transaction((key: RegistryKey, registrations: readonly FoundRegistration[], progress: ScanProgress) => {
    for (const registration of registrations) insertAgent.run({ ...key, ...registration })
    const complete = progress.kind === 'complete'
    upsertScan.run({
      ...key,
      complete: complete ? 1 : 0,
      run: progress.run,
      newestSignature: complete ? progress.newestSignature : null,
      fetchedAt: complete ? progress.fetchedAt : null,
      top: complete ? null : progress.resume.top,
      before: complete ? null : progress.resume.before,
      position: complete ? null : progress.resume.position
    })
  })

  return {
    async scanState (key) {
      return scanStateOf(selectScan.get(key.network, key.registryAddress))
    },

    async saveProgress (key, registrations, progress) {
      save.immediate(key, registrations, progress)
    },

    async listAgents (key, filters = {}) {
      return listAgents.all({ ...key, wallet: filters.wallet ?? null, name: filters.name ?? null })
    }
  }
}
