import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { join } from 'node:path'
import type { DestinationStream } from 'pino'
import type { Test } from 'tap'
import app, { createServer } from '../app.js'
import { CATALOGUE, type Catalogue } from '../lib/catalogue/catalogue.js'
import { loadConfig } from '../config.js'
import type { SqliteDatabase } from '../db/sqlite/open-database.js'
import type { SqliteStore } from '../db/sqlite/sqlite-store.js'
import type { PostgresStore } from '../db/postgres/postgres-store.js'
import { testFolder } from './fixtures/test-folder.js'

/** An address nothing listens on: a refused connection, answered at once. */
export const UNREACHABLE_URL = 'http://127.0.0.1:9'

/**
 * Environment for a test instance: files in the test's own folder, quiet logs, nothing remote
 * (a public data network gets the unreachable URL instead of its public endpoint). The per-client
 * limits are off unless a test sets them: every inject() comes from one address, and a test of
 * exactly-once or of refusals sends far more than a client may (the defaults, 300 requests and 20
 * failed proofs a minute, are tested in test/app/errors.test.ts; spawned servers run with them).
 */
export function testEnv (t: Test, env: Record<string, string> = {}): Record<string, string> {
  const dir = testFolder(t)
  const merged: Record<string, string> = {
    LOG_LEVEL: 'silent',
    SOLANA_NETWORK: 'localnet',
    SOLANA_RPC_URL: UNREACHABLE_URL,
    PRICE_API_URL: UNREACHABLE_URL,
    DATABASE_PATH: join(dir, 'merchant.db'),
    MERCHANT_KEYPAIR_PATH: join(dir, 'merchant-keypair.json'),
    // Not the default path: created on first start only when asked.
    CREATE_KEYPAIR: 'true',
    RATE_LIMIT_MAX: '0',
    PROOF_FAILURE_LIMIT: '0',
    ...env
  }
  const dataNetwork = merged.DATA_NETWORK ?? (merged.SOLANA_NETWORK === 'localnet' ? 'localnet' : 'mainnet-beta')
  if (dataNetwork !== merged.SOLANA_NETWORK && merged.DATA_RPC_URL === undefined) merged.DATA_RPC_URL = UNREACHABLE_URL
  return merged
}

/**
 * The whole app on Fastify, ready for inject(), closed when the test ends; `catalogue`: products
 * other than the merchant's own; `clock`: the time its store's payment leases are read on.
 */
export async function build (t: Test, env: Record<string, string> = {}, extend?: (app: FastifyInstance) => void, logStream?: DestinationStream, catalogue?: Catalogue, clock?: () => number): Promise<FastifyInstance> {
  const config = loadConfig(testEnv(t, env))
  const server = createServer(config, logStream)
  await server.register(fp(app), { config, catalogue: catalogue ?? CATALOGUE, clock })
  extend?.(server)
  await server.ready()
  t.teardown(() => server.close())
  return server
}

/** The SQLite database behind an app on the default store, for tests that read it directly. */
export function sqliteOf (app: FastifyInstance): SqliteDatabase {
  const store = app.store as SqliteStore
  if (store.engine !== 'sqlite') throw new Error(`the app runs on ${store.engine}, not SQLite`)
  return store.db
}

/**
 * The audit rows of one signature, oldest first, on either engine. The row is written after the
 * response (onResponse), so this waits up to 2 s for `atLeast` rows.
 */
export async function auditRowsOf (app: FastifyInstance, signature: string, atLeast = 1): Promise<Array<{ outcome: string, verified: boolean }>> {
  for (let i = 0; ; i++) {
    const rows = await readAuditRows(app, signature)
    if (rows.length >= atLeast || i === 100) return rows
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

async function readAuditRows (app: FastifyInstance, signature: string): Promise<Array<{ outcome: string, verified: boolean }>> {
  if (app.store.engine === 'sqlite') {
    return (sqliteOf(app).prepare('SELECT outcome, verified FROM audit_log WHERE signature = ? ORDER BY id').all(signature) as Array<{ outcome: string, verified: number }>)
      .map(row => ({ outcome: row.outcome, verified: row.verified === 1 }))
  }
  const { rows } = await (app.store as PostgresStore).pool.query('SELECT outcome, verified FROM audit_log WHERE signature = $1 ORDER BY id', [signature])
  return rows as Array<{ outcome: string, verified: boolean }>
}
