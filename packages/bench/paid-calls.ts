// Paid calls, each with a proof of its own (a proof buys one delivery, so autocannon's repeated
// requests will not do): a fixed number of workers over one keep-alive pool, each taking the next
// proof. And the getTransaction the gate makes, alone, through the service's own RPC client with
// the gate's parameters, over the same signatures and with the same number in flight. And a free
// route through the same client, for the HTTP + Fastify part of a call. The three alternate in
// blocks, so a busy spell on a shared machine falls on all alike.
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import pg from 'pg'
import type { BenchChain, Proof } from './chain.js'
import { proofFloorCall } from './chain-floor.js'
import { mergeSamples, summarize, type CallSample, type LatencySummary, type LoadFigures } from './figures.js'
import { poolOver, type LoadTarget } from './load.js'
import { createLeanRpc } from './lean-rpc.js'
import { getStatus, timeEach } from './timed-calls.js'

export interface PaidCallSet {
  concurrency: number
  /** Server CPU: the service's. */
  paid: LoadFigures
  /** The chain-only floor: getTransaction by a bare kit client (server CPU: the chain's). */
  getTransaction: LoadFigures
  /** The free route, same client, same number in flight: HTTP and Fastify without the gate. */
  freeRoute: LoadFigures
  /** RPC requests per method the service made during the paid calls. */
  rpcByMethod: Record<string, number>
  /** Time inside the service per delivered call: reply.elapsedTime at onResponse, from its audit log. */
  serviceElapsed: LatencySummary
}

/** Audit rows are written in onResponse, just after the answer left: give the last ones time to land. */
const AUDIT_SETTLE_MS = 200

const DELIVERED_AFTER = "SELECT id, latency_ms FROM audit_log WHERE id > $1 AND outcome = 'DELIVERED' AND flow = $2"

/**
 * The service's own account of the calls it delivered through `flow` (its audit log) after row
 * `afterId`, and the newest row id; `database` is its SQLite file or its PostgreSQL URL.
 */
export async function auditLatencies (database: string, afterId: number, flow = 'proof'): Promise<{ latencies: number[], lastId: number }> {
  let rows: Array<{ id: number | string, latency_ms: number }>
  if (database.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: database })
    await client.connect()
    try {
      rows = (await client.query(DELIVERED_AFTER, [afterId, flow])).rows
    } finally {
      await client.end()
    }
  } else {
    const db = new Database(database, { readonly: true })
    try {
      rows = db.prepare(DELIVERED_AFTER.replace(/\$\d/g, '?')).all(afterId, flow) as typeof rows
    } finally {
      db.close()
    }
  }
  return { latencies: rows.map(row => row.latency_ms), lastId: rows.reduce((last, row) => Math.max(last, Number(row.id)), afterId) }
}

/**
 * `proofs` split into `blocks`; each block is used for paid calls, then for getTransaction alone,
 * then as many calls of `freePath`.
 */
export async function measurePaidCalls (options: {
  /** One service, or several processes of it on one store (their load spread evenly, their CPU summed). */
  service: LoadTarget | readonly LoadTarget[]
  /** The service's database file or PostgreSQL URL, for its audit log. */
  databasePath: string
  chain: BenchChain
  path: string
  freePath: string
  proofs: readonly Proof[]
  concurrency: number
  blocks: number
}): Promise<PaidCallSet> {
  const { service, databasePath, chain, path, freePath, proofs, concurrency, blocks } = options
  const auditBefore = (await auditLatencies(databasePath, 0)).lastId
  const { pool, pids } = poolOver(service, concurrency)
  const lean = createLeanRpc(chain.url, concurrency)
  const paid: CallSample[] = []
  const alone: CallSample[] = []
  const free: CallSample[] = []
  const rpcByMethod: Record<string, number> = {}
  const blockSize = Math.ceil(proofs.length / blocks)
  try {
    for (let start = 0; start < proofs.length; start += blockSize) {
      const block = proofs.slice(start, start + blockSize)
      await chain.resetStats()
      paid.push(await timeEach(block, concurrency, pids, async proof =>
        await getStatus(pool, path, { 'x-payment-signature': proof.signature, 'x-payment-wallet': proof.wallet })))
      for (const [method, count] of Object.entries(await chain.stats())) rpcByMethod[method] = (rpcByMethod[method] ?? 0) + count
      alone.push(await timeEach(block, concurrency, chain.pid, async proof => await proofFloorCall(lean.rpc, proof.signature)))
      free.push(await timeEach(block, concurrency, pids, async () => await getStatus(pool, freePath)))
    }
  } finally {
    await pool.close()
    await lean.close()
  }
  await sleep(AUDIT_SETTLE_MS)
  return {
    concurrency,
    paid: mergeSamples(paid),
    getTransaction: mergeSamples(alone),
    freeRoute: mergeSamples(free),
    rpcByMethod,
    serviceElapsed: summarize((await auditLatencies(databasePath, auditBefore)).latencies)
  }
}
