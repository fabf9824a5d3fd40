import type pg from 'pg'
import type { LaunchFactsRepository } from '../contracts/launch-facts.js'
import type { DatabaseCall } from './connection.js'

const INSERT = `INSERT INTO launch_facts (network, mint, facts, created_at)
  VALUES ($1, $2, $3, coalesce($4::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint))
  ON CONFLICT (network, mint) DO NOTHING`
const SELECT = 'SELECT facts FROM launch_facts WHERE network = $1 AND mint = $2'
const INSERT_FUNDER = 'INSERT INTO wallet_funders (network, wallet, funder, signature) VALUES ($1, $2, $3, $4) ON CONFLICT (network, wallet) DO NOTHING'
const SELECT_FUNDERS = 'SELECT wallet, funder, signature FROM wallet_funders WHERE network = $1 AND wallet = ANY($2::text[])'

/** Launch facts on PostgreSQL: one statement per call; an unreachable database is STORE_UNAVAILABLE. */
export function createPostgresLaunchFacts (pool: pg.Pool, callDatabase: DatabaseCall): LaunchFactsRepository {
  return {
    async load (network, mint) {
      const { rows } = await callDatabase(async () => await pool.query<{ facts: string }>(SELECT, [network, mint]))
      return rows[0]?.facts
    },
    async save (network, mint, facts, now) {
      await callDatabase(async () => await pool.query(INSERT, [network, mint, facts, now ?? null]))
    },
    async loadFunders (network, wallets) {
      const { rows } = await callDatabase(async () => await pool.query<{ wallet: string, funder: string, signature: string }>(SELECT_FUNDERS, [network, wallets]))
      return new Map(rows.map(row => [row.wallet, { funder: row.funder, signature: row.signature }]))
    },
    async saveFunder (network, wallet, funder, signature) {
      await callDatabase(async () => await pool.query(INSERT_FUNDER, [network, wallet, funder, signature]))
    }
  }
}
