import pino, { type DestinationStream } from 'pino'

/**
 * Where the logs go. By default pino writes NDJSON on stdout (what `pm2 logs` and container
 * runtimes read). With LOG_FILE, pino writes the file itself, asynchronously and in large
 * writes: under PM2 that spares the daemon from reading every line over IPC. Either way the
 * last lines are written out before the process ends.
 */
export interface LogDestination {
  /** The stream for Fastify's logger; undefined leaves pino on stdout. */
  stream: DestinationStream | undefined
  /** Opens the file again under its name (after logrotate moved it); a no-op on stdout. */
  reopen: () => void
  /** Resolves once every line written so far is out of the process. */
  flush: () => Promise<void>
}

async function flushStdout (): Promise<void> {
  // pino writes straight to fd 1 when stdout is untouched (and flushes it itself at exit), but
  // goes through process.stdout.write when something wrapped it, as PM2 does in cluster mode:
  // a write of nothing calls back once the writes queued before it are done.
  await new Promise<void>(resolve => {
    if (!process.stdout.write('', () => resolve())) process.stdout.once('drain', () => resolve())
  })
}

export function createLogDestination (logFile: string | undefined): LogDestination {
  if (logFile === undefined) return { stream: undefined, reopen: () => {}, flush: flushStdout }
  const file = pino.destination({ dest: logFile, sync: false, mkdir: true, mode: 0o640 })
  return {
    stream: file,
    reopen: () => file.reopen(),
    flush: async () => await new Promise<void>(resolve => {
      file.flush(() => resolve())
    })
  }
}
