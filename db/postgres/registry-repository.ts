import type pg from 'pg'
import type { RegisteredAgentBody } from '../../schemas/registry.js'
import { scanStateOf, type RegistryRepository, type ScanRow } from '../contracts/registry-repository.js'
import type { DatabaseCall } from './connection.js'
import { inTransaction } from './transaction.js'

const ASCII_LOWER = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'"

/** Registrations and the scan cursor on PostgreSQL, shared by every instance. */
export function createPostgresRegistryRepository (pool: pg.Pool, callDatabase: DatabaseCall): RegistryRepository {
  return {
    async scanState (key) {
      const { rows } = await callDatabase(async () => await pool.query<ScanRow>(`
        SELECT newest_signature, fetched_at, scan_run, resume_top, resume_before, resume_position
        FROM registry_scans WHERE network = $1 AND registry_address = $2`, [key.network, key.registryAddress]))
      return scanStateOf(rows[0])
    },

    async saveProgress (key, registrations, progress) {
      const complete = progress.kind === 'complete'
      await inTransaction(pool, callDatabase, async (client) => {
        if (registrations.length > 0) {
          await client.query(`
            INSERT INTO registry_agents (network, registry_address, signature, name, manifest_url, wallet, block_time, slot, scan_run, scan_position)
            SELECT $1::text, $2::text, * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::integer[], $10::integer[])
            ON CONFLICT DO NOTHING`, [key.network, key.registryAddress,
            registrations.map(r => r.signature), registrations.map(r => r.name), registrations.map(r => r.manifestUrl),
            registrations.map(r => r.wallet), registrations.map(r => r.blockTime), registrations.map(r => r.slot),
            registrations.map(r => r.run), registrations.map(r => r.position)])
        }
        await client.query(`
          INSERT INTO registry_scans AS s (network, registry_address, newest_signature, fetched_at, scan_run, resume_top, resume_before, resume_position)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
          ON CONFLICT (network, registry_address) DO UPDATE SET
            newest_signature = CASE WHEN $9 THEN excluded.newest_signature ELSE s.newest_signature END,
            fetched_at = CASE WHEN $9 THEN excluded.fetched_at ELSE s.fetched_at END,
            scan_run = greatest(s.scan_run, excluded.scan_run),
            resume_top = excluded.resume_top, resume_before = excluded.resume_before, resume_position = excluded.resume_position`,
        [key.network, key.registryAddress,
          complete ? progress.newestSignature : null, complete ? progress.fetchedAt : null, progress.run,
          complete ? null : progress.resume.top, complete ? null : progress.resume.before, complete ? null : progress.resume.position,
          complete])
      })
    },

    async listAgents (key, filters = {}) {
      const { rows } = await callDatabase(async () => await pool.query<RegisteredAgentBody>(`
        SELECT name, manifest_url, wallet, signature, block_time AS timestamp
        FROM registry_agents
        WHERE network = $1 AND registry_address = $2
          AND ($3::text IS NULL OR wallet = $3)
          AND ($4::text IS NULL OR translate(name, ${ASCII_LOWER}) = translate($4, ${ASCII_LOWER}))
        ORDER BY slot DESC, scan_run DESC, scan_position`, [key.network, key.registryAddress, filters.wallet ?? null, filters.name ?? null]))
      return rows
    }
  }
}
