// /registry: a cold read of the chain (the first GET on an empty database waits for the scan), then
// warm reads (the service answers them from its cached JSON text). Also, timed apart in this
// process on the service's database file, what rebuilding that text costs once the cache is stale:
// the SQL listing and JSON serialization of its rows.
import { setTimeout as sleep } from 'node:timers/promises'
import { generateKeyPairSigner } from '@solana/kit'
import { Pool, request } from 'undici'
import { openDatabase } from '../../db/sqlite/open-database.js'
import type { RegistryKey } from '../../db/contracts/registry-repository.js'
import { createRegistryRepository } from '../../db/sqlite/registry-repository.js'
import type { BenchChain } from './chain.js'
import { mergeSamples, summarize, type LatencySummary, type LoadFigures } from './figures.js'
import type { BenchProcess } from './processes.js'
import { getStatus, timeEach } from './timed-calls.js'

export interface ColdScan {
  registrations: number
  /** Time of the first GET /registry, which waits for the whole chain read. */
  ms: number
  /** JSON-RPC calls the chain answered (each call of a batch counts). */
  rpcRequests: number
  rpcByMethod: Record<string, number>
  agentsListed: number
  responseBytes: number
}

/** The service's start-up reads (network check, payment account) land before counting starts. */
const START_UP_SETTLE_MS = 1000

export async function coldScan (chain: BenchChain, serviceUrl: string, registrations: number): Promise<ColdScan> {
  await sleep(START_UP_SETTLE_MS)
  await chain.resetStats()
  const started = performance.now()
  const response = await request(`${serviceUrl}/registry`)
  const text = await response.body.text()
  const ms = performance.now() - started
  if (response.statusCode !== 200) throw new Error(`GET /registry answered ${response.statusCode}: ${text.slice(0, 300)}`)
  const rpcByMethod = await chain.stats()
  return {
    registrations,
    ms,
    rpcRequests: Object.values(rpcByMethod).reduce((sum, count) => sum + count, 0),
    rpcByMethod,
    agentsListed: (JSON.parse(text) as { total: number }).total,
    responseBytes: Buffer.byteLength(text)
  }
}

export interface WarmReads {
  all: LoadFigures
  /** One agent by name: the same route with a small answer. */
  byName: LoadFigures
  responseBytes: number
}

/** Reads one after another over one connection, so latency is the service's and not a queue's. */
export async function warmReads (service: BenchProcess, reads: number): Promise<WarmReads> {
  const pool = new Pool(service.url, { connections: 1 })
  const read = (path: string) => async () => await getStatus(pool, path)
  const times = (count: number) => Array.from({ length: count }, (_, i) => i)
  try {
    const sample = await request(`${service.url}/registry`)
    const responseBytes = Buffer.byteLength(await sample.body.text())
    await timeEach(times(Math.ceil(reads / 10)), 1, service.pid, read('/registry'))
    return {
      all: mergeSamples([await timeEach(times(reads), 1, service.pid, read('/registry'))]),
      byName: mergeSamples([await timeEach(times(reads), 1, service.pid, read('/registry?name=agent-7'))]),
      responseBytes
    }
  } finally {
    await pool.close()
  }
}

export interface ListingParts {
  sql: LatencySummary
  stringify: LatencySummary
  rows: number
}

/** The SQL listing and JSON.stringify of its rows, timed apart (the service's schema serializer is not used here). */
export async function listingParts (databasePath: string, key: RegistryKey, repetitions: number): Promise<ListingParts> {
  const db = openDatabase(databasePath)
  try {
    const repository = createRegistryRepository(db)
    const sql: number[] = []
    const stringify: number[] = []
    let rows = 0
    for (let i = 0; i < repetitions; i++) {
      let started = performance.now()
      const agents = await repository.listAgents(key)
      sql.push(performance.now() - started)
      started = performance.now()
      JSON.stringify({ ...key, agents, total: agents.length })
      stringify.push(performance.now() - started)
      rows = agents.length
    }
    return { sql: summarize(sql), stringify: summarize(stringify), rows }
  } finally {
    db.close()
  }
}

export interface RegistryFigures {
  /** Seconds to sign and land the registrations added before each cold read. */
  setupSeconds: Record<string, number>
  cold: ColdScan[]
  warm: WarmReads & { registrations: number }
  listingParts: ListingParts
}

/**
 * Registrations on one registry address, grown to each of `sizes` in turn; after each, a service
 * on a fresh database reads them cold. The last one is then read warm.
 */
export async function measureRegistry (options: {
  chain: BenchChain
  /** A service on a new database file of that name, reading `registryAddress`. */
  startService: (database: string, registryAddress: string) => Promise<BenchProcess>
  /** Where the service keeps the database of that name. */
  databasePath: (database: string) => string
  sizes: readonly number[]
  warmReads: number
  progress: (message: string) => void
}): Promise<RegistryFigures & { warnings: string[] }> {
  const { chain, sizes, progress } = options
  const registryAddress = (await generateKeyPairSigner()).address
  const setupSeconds: Record<string, number> = {}
  const cold: ColdScan[] = []
  const warnings: string[] = []
  let sent = 0
  let service: BenchProcess | undefined
  let databasePath = ''
  try {
    for (const size of sizes) {
      progress(`registry: sending registrations ${sent} to ${size}`)
      const started = performance.now()
      await chain.register(registryAddress, sent, size)
      setupSeconds[size] = (performance.now() - started) / 1000
      sent = size
      warnings.push(...service?.warnings() ?? [])
      await service?.stop()
      const database = `registry-${size}.db`
      databasePath = options.databasePath(database)
      service = await options.startService(database, registryAddress)
      progress(`registry: cold read of ${size}`)
      cold.push(await coldScan(chain, service.url, size))
    }
    progress(`registry: ${options.warmReads} warm reads of all, then of one name`)
    const warm = { ...await warmReads(service as BenchProcess, options.warmReads), registrations: sent }
    warnings.push(...(service as BenchProcess).warnings())
    return { setupSeconds, cold, warm, listingParts: await listingParts(databasePath, { network: 'localnet', registryAddress }, 20), warnings }
  } finally {
    await service?.stop()
  }
}
