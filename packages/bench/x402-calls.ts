// The standard x402 flow's paid call on the local chain: each call carries a fresh payer-signed
// `exact` transaction (PAYMENT-SIGNATURE, v2) that the service verifies (simulation), co-signs,
// sends and confirms before it answers. Beside it, the chain-only floor (packages/bench/chain-floor.ts:
// the same RPC calls made by a bare kit client) over other transactions of the same shape, with the
// same number in flight: the split between the chain's time and the service's own. Transactions are built per block, just before use: a blockhash lives
// 150 slots and every landed transaction makes one.
import { setTimeout as sleep } from 'node:timers/promises'
import type { KeyPairSigner } from '@solana/kit'
import type { BenchChain } from './chain.js'
import { x402FloorCall } from './chain-floor.js'
import { createLeanRpc } from './lean-rpc.js'
import { mergeSamples, summarize, type CallSample, type LatencySummary, type LoadFigures } from './figures.js'
import { poolOver, type LoadTarget } from './load.js'
import { auditLatencies } from './paid-calls.js'
import { getStatus, timeEach } from './timed-calls.js'

export interface X402CallSet {
  concurrency: number
  /** Server CPU: the service's. */
  x402: LoadFigures
  /** The chain-only floor: the RPC calls of one x402 call made by a bare kit client (server CPU: the chain's). */
  rpcAlone: LoadFigures
  rpcByMethod: Record<string, number>
  /** Time inside the service per delivered x402 call (its audit log); absent for a peer, which keeps none. */
  serviceElapsed?: LatencySummary
}

const AUDIT_SETTLE_MS = 200
const BLOCK = 100

/** The PAYMENT-SIGNATURE value of a v2 payload carrying `transaction`. */
export function v2PaymentHeader (transaction: string, accepted: unknown, resource: unknown): string {
  return Buffer.from(JSON.stringify({ x402Version: 2, resource, accepted, payload: { transaction } })).toString('base64')
}

export async function measureX402Calls (options: {
  /** One service, or several processes of it on one store (their load spread evenly, their CPU summed). */
  service: LoadTarget | readonly LoadTarget[]
  /** The service's store, for its audit log; a peer (packages/bench/peers/x402-peer.ts) has none. */
  databasePath?: string
  chain: BenchChain
  path: string
  price: bigint
  feePayer: KeyPairSigner
  calls: number
  concurrency: number
}): Promise<X402CallSet> {
  const { databasePath, chain, path, price, feePayer, calls, concurrency } = options
  const challenge = await fetch(`${[options.service].flat()[0].url}${path}`)
  const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString('utf8')) as { accepts: unknown[], resource: unknown }
  const auditBefore = databasePath === undefined ? 0 : (await auditLatencies(databasePath, 0, 'x402-v2')).lastId
  const { pool, pids } = poolOver(options.service, concurrency)
  const lean = createLeanRpc(chain.url, concurrency)
  const paid: CallSample[] = []
  const alone: CallSample[] = []
  const rpcByMethod: Record<string, number> = {}
  try {
    for (let done = 0; done < calls; done += BLOCK) {
      const size = Math.min(BLOCK, calls - done)
      const forService = await chain.x402Payloads(size, price, feePayer.address)
      await chain.resetStats()
      paid.push(await timeEach(forService, concurrency, pids, async tx =>
        await getStatus(pool, path, { 'payment-signature': v2PaymentHeader(tx, required.accepts[0], required.resource) })))
      for (const [method, count] of Object.entries(await chain.stats())) rpcByMethod[method] = (rpcByMethod[method] ?? 0) + count

      const forRpc = await chain.x402Payloads(size, price, feePayer.address)
      alone.push(await timeEach(forRpc, concurrency, chain.pid, async wire => await x402FloorCall(lean.rpc, wire, feePayer)))
    }
  } finally {
    await pool.close()
    await lean.close()
  }
  if (databasePath !== undefined) await sleep(AUDIT_SETTLE_MS)
  return {
    concurrency,
    x402: mergeSamples(paid),
    rpcAlone: mergeSamples(alone),
    rpcByMethod,
    serviceElapsed: databasePath === undefined ? undefined : summarize((await auditLatencies(databasePath, auditBefore, 'x402-v2')).latencies)
  }
}
