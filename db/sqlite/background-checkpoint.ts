import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/** How often the WAL is folded into the database file; between two, the WAL grows by what was written. */
const CHECKPOINT_INTERVAL_MS = 1000

// Plain CommonJS, run with `eval`: the same code from source (tsx) and from dist/, no loader needed.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
// Never a new database: a file gone before the worker opens it (removed, moved) is reported, not made again empty.
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('busy_timeout = 5000')
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch (error) {
    parentPort.postMessage({ error: error.message })
  }
}, workerData.intervalMs)
parentPort.once('message', () => {
  clearInterval(timer)
  db.close()
  parentPort.close()
})
`

export interface CheckpointEvents {
  /** A checkpoint failed (the next one tries again). */
  failed: (message: string) => void
  /** The worker ended without being stopped: the connection must checkpoint by itself again. */
  gone: () => void
}

export interface BackgroundCheckpoint {
  /** Stops the worker and closes its connection (before the last connection closes and checkpoints). */
  stop: () => Promise<void>
}

/**
 * Checkpoints the WAL of the SQLite file at `path` from a worker thread with a connection of its
 * own. The service's connection runs with `wal_autocheckpoint = 0`: SQLite's automatic checkpoint
 * runs inside the commit that crosses 1,000 pages, on the event loop, and waits for two fsyncs
 * there, about 0.3 ms per paid call on average (docs/performance.md). A passive checkpoint never
 * blocks a writer, so commits on the event loop only append to the WAL. Durability is the same
 * (synchronous=NORMAL syncs at checkpoints, wherever they run).
 */
export function startBackgroundCheckpoint (path: string, events: CheckpointEvents): BackgroundCheckpoint {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, intervalMs: CHECKPOINT_INTERVAL_MS } })
  // A process that forgot to close its store still exits.
  worker.unref()
  let stopping = false
  worker.on('message', (message: { error?: unknown }) => events.failed(String(message.error)))
  worker.on('error', (error: Error) => events.failed(error.message))
  const exited = new Promise<void>(resolve => worker.once('exit', () => {
    if (!stopping) events.gone()
    resolve()
  }))
  return {
    async stop () {
      stopping = true
      // Held by the loop until it is gone: an unref'd worker's exit alone would not keep the process waiting for it.
      worker.ref()
      worker.postMessage('stop')
      await exited
    }
  }
}
