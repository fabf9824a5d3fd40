import { scanStateOf, type FoundRegistration, type RegistryKey, type RegistryRepository, type ScanProgress, type ScanRow } from '../contracts/registry-repository.js'
import type { SqliteDatabase } from './open-database.js'
import type { RegisteredAgentBody } from '../../schemas/registry.js'

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
