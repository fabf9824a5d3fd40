import type pg from 'pg'
import type { LaunchFactsRepository } from '../contracts/launch-facts.js'
import type { DatabaseCall } from './connection.js'

const INSERT = `INSERT INTO launch_facts (network, mint, facts, created_at)
  VALUES ($1, $2, $3, coalesce($4::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint))
  ON CONFLICT (network, mint) DO NOTHING`
const SELECT = 'SELECT facts FROM launch_facts WHERE network = $1 AND mint = $2'

/** Launch facts on PostgreSQL: one statement per call; an unreachable database is STORE_UNAVAILABLE. */
export function createPostgresLaunchFacts (pool: pg.Pool, callDatabase: DatabaseCall): LaunchFactsRepository {
  return {
    async load (network, mint) {
      const { rows } = await callDatabase(async () => await pool.query<{ facts: string }>(SELECT, [network, mint]))
      return rows[0]?.facts
    },
    async save (network, mint, facts, now) {
      await callDatabase(async () => await pool.query(INSERT, [network, mint, facts, now ?? null]))
    }
  }
}
