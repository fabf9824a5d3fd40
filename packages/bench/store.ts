// The replay store alone: claim-and-redeem pairs per second from N processes on one database (a
// SQLite file with WAL, busy_timeout and synchronous as the service opens it, or a PostgreSQL URL),
// each on signatures of its own, each with `concurrency` pairs in flight.
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../project.js'
import { TSX_IMPORT } from './processes.js'

export interface StoreFigures {
  processes: number
  /** Pairs per second of all processes together, and of each. */
  pairsPerSecond: number
  perProcess: number[]
  pairs: number
  seconds: number
}

export interface StoreLoad {
  /** Pairs in flight per process (the SQLite store is synchronous: 1 says it all). */
  concurrency?: number
  /** PostgreSQL connections per process. */
  poolSize?: number
  /** PostgreSQL: a naive client instead of the store (the comparison). */
  naive?: boolean
}

export async function runStore (databasePath: string, processes: number, seconds: number, load: StoreLoad = {}): Promise<StoreFigures> {
  const children: ChildProcess[] = Array.from({ length: processes }, (_, i) => fork(join(PROJECT_ROOT, 'packages', 'bench', 'store-worker.ts'), [], {
    execArgv: ['--import', TSX_IMPORT],
    env: {
      ...process.env,
      STORE_DATABASE: databasePath,
      STORE_SECONDS: String(seconds),
      STORE_TAG: `w${i}p${processes}x`,
      STORE_CONCURRENCY: String(load.concurrency ?? 1),
      STORE_POOL_SIZE: String(load.poolSize ?? 8),
      STORE_NAIVE: load.naive === true ? '1' : '0'
    }
  }))
  // Every process opens the file (and migrates it) before any starts the clock.
  await Promise.all(children.map(async child => await once(child, 'message')))
  const results = children.map(async child => (await once(child, 'message'))[0] as { pairs: number, seconds: number })
  for (const child of children) child.send('go')
  const done = await Promise.all(results)
  await Promise.all(children.map(async child => child.exitCode === null ? await once(child, 'exit') : undefined))
  const perProcess = done.map(result => result.pairs / result.seconds)
  return {
    processes,
    pairsPerSecond: perProcess.reduce((sum, rate) => sum + rate, 0),
    perProcess,
    pairs: done.reduce((sum, result) => sum + result.pairs, 0),
    seconds: Math.max(...done.map(result => result.seconds))
  }
}
