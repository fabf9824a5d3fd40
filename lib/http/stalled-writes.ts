import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { openConnections } from './open-connections.js'

export interface StalledWriteOptions {
  /** A connection whose answer has not moved for this long is closed. */
  stallMs: number
  checkEveryMs: number
}

/** What a connection had left to write when it was last seen moving. */
interface Waiting {
  written: number
  pending: number
  since: number
}

/**
 * Closes connections whose client stopped reading: bytes wait to be written and nothing has
 * moved for stallMs, no write finished and none was added (a client that stops reading a large
 * answer would otherwise hold its socket and the unsent bytes for good). That is what Node's
 * socket inactivity timer (Fastify's connectionTimeout) measures too, but that timer is made
 * again twice per request, which cost a 402 a fifth of its CPU time; here one interval reads the
 * open connections, as Node checks its header and request timeouts. Returns the function that
 * stops the checks.
 */
export function closeStalledWrites (server: Server, { stallMs, checkEveryMs }: StalledWriteOptions): () => void {
  const connections = openConnections(server)
  const waiting = new WeakMap<Socket, Waiting>()
  const timer = setInterval(() => {
    const now = Date.now()
    for (const socket of connections) {
      const pending = socket.writableLength
      if (pending === 0) {
        waiting.delete(socket)
        continue
      }
      const written = socket.bytesWritten
      const seen = waiting.get(socket)
      if (seen === undefined || seen.written !== written || seen.pending !== pending) waiting.set(socket, { written, pending, since: now })
      else if (now - seen.since >= stallMs) socket.destroy()
    }
  }, checkEveryMs)
  timer.unref()
  return () => clearInterval(timer)
}
