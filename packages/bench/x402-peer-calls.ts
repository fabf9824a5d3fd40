// The x402 paid call beside its peer: @x402/express with @x402/core's in-process facilitator
// (@x402/svm's exact scheme, the same fee payer, the same local chain) selling the same route at
// the same price. Halves alternate (ours, theirs, ours, theirs) so a noisy spell on the machine
// falls on both; each half also runs beside the chain-only floor, as every x402 set does.
import { join } from 'node:path'
import type { BenchWorld } from './bench-world.js'
import { mergeRounds, type LoadFigures } from './figures.js'
import type { LoadTarget } from './load.js'
import { startPeer, type BenchProcess } from './processes.js'
import { measureX402Calls } from './x402-calls.js'

export interface PeerPaidSet {
  concurrency: number
  /** The service's halves merged (server CPU: the service's). */
  service: LoadFigures
  /** The peer's halves merged (server CPU: the peer's, facilitator included). */
  peer: LoadFigures
}

/** The peer guarding `path` at `price` for the bench's merchant, settling with the bench's fee payer. */
export async function startPaidPeer (world: BenchWorld, path: string, price: bigint): Promise<BenchProcess> {
  return await startPeer('express', '{}', {
    path, amount: String(price), asset: world.chain.mint, payTo: world.chain.merchant, feePayer: world.feePayer.address
  }, world.scratch, join(world.scratch, 'peer-express.log'), { rpcUrl: world.chain.url, feePayerKeypairPath: world.env.X402_FEE_PAYER_KEYPAIR_PATH })
}

/** `calls` x402 paid calls to each of the service and the peer with `concurrency` in flight, in alternating halves. */
export async function measureAgainstPeer (options: {
  world: BenchWorld
  service: LoadTarget
  peer: BenchProcess
  databasePath: string
  path: string
  price: bigint
  calls: number
  concurrency: number
}): Promise<PeerPaidSet> {
  const { world, service, peer, databasePath, path, price, calls, concurrency } = options
  const common = { chain: world.chain, path, price, feePayer: world.feePayer, calls: calls / 2, concurrency }
  const ours: LoadFigures[] = []
  const theirs: LoadFigures[] = []
  for (let half = 0; half < 2; half++) {
    ours.push((await measureX402Calls({ ...common, service, databasePath })).x402)
    theirs.push((await measureX402Calls({ ...common, service: peer })).x402)
  }
  return { concurrency, service: mergeRounds(ours), peer: mergeRounds(theirs) }
}
