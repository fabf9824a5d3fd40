import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { Server as NetServer, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { openConnections } from './open-connections.js'

export interface ConnectionDrainOptions {
  /**
   * A kept-alive connection with no request for this long is closed during a drain. An active
   * client sends its next request well within it (and gets `Connection: close` on the answer);
   * closing a connection the moment it falls idle races that request, which then fails.
   */
  idleCloseMs?: number
  pollMs?: number
}

export const DEFAULT_IDLE_CLOSE_MS = 1000

// The answer in progress on a connection is Node's own pointer: a ServerResponse sets itself as
// its socket's `_httpMessage` when it takes the socket and clears it when done (http-terminator
// reads the same). Read only during a drain, it costs requests nothing; a listener on every
// response to track the same cost the cheapest routes about a tenth of their time.
function answerInProgress (socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined
}

/**
 * The idle time a poll may count: the time since the previous poll, but no more than two poll
 * intervals. After the process stalled (a loaded machine, a long GC), timers run before the
 * event loop reads sockets, so a request sent during the stall is still unread: counting the
 * whole stall as idleness would close that connection under its request, which then fails.
 */
function observedIdle (sinceLastPollMs: number, pollMs: number): number {
  return Math.min(sinceLastPollMs, 2 * pollMs)
}

// During a drain, every answer tells its client to go: added ahead of the application's listener,
// so the header is there before any hook writes.
function closeAfterAnswer (_request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('connection', 'close')
}

/**
 * Drains an HTTP server without failing a request. `begin()` stops accepting connections
 * (under a cluster master, as PM2 runs it, the master stops handing this worker new ones) but,
 * unlike http.Server.close(), leaves kept-alive connections open: requests still arriving on them
 * are answered, with `Connection: close`, so each client moves to another worker after its
 * answer rather than meeting a reset. `settle()` waits for the connections to go.
 */
export function createConnectionDrain (server: Server, options: ConnectionDrainOptions = {}) {
  const { idleCloseMs = DEFAULT_IDLE_CLOSE_MS, pollMs = 25 } = options
  const connections = openConnections(server)
  // During a drain: how long each connection has been seen with no answer in progress, counted
  // only in time the event loop was free to read it (see observedIdle).
  const idleFor = new WeakMap<Socket, number>()
  let draining = false

  function inFlight (): number {
    let count = 0
    for (const socket of connections) if (answerInProgress(socket) !== undefined) count++
    return count
  }

  return {
    get draining () { return draining },
    inFlight,
    /** Connections still open. */
    get open () { return connections.size },

    /** Stops accepting connections; answers from now on carry `Connection: close`. */
    begin (): void {
      if (draining) return
      draining = true
      server.prependListener('request', closeAfterAnswer)
      for (const socket of connections) {
        const response = answerInProgress(socket)
        if (response !== undefined && !response.headersSent) response.setHeader('connection', 'close')
      }
      // net.Server's close: http.Server's would also drop every idle kept-alive connection at once.
      if (server.listening) NetServer.prototype.close.call(server)
    },

    /**
     * Resolves true once every connection is closed, false when `graceMs` ran out first. A
     * connection is closed once it has stayed without an answer in progress for idleCloseMs (its
     * client may be sending its next request meanwhile); busy ones close after their answer.
     */
    async settle (graceMs: number): Promise<boolean> {
      const deadline = Date.now() + graceMs
      let lastPoll = Date.now()
      for (;;) {
        const now = Date.now()
        const idle = observedIdle(now - lastPoll, pollMs)
        lastPoll = now
        for (const socket of connections) {
          if (answerInProgress(socket) !== undefined) {
            idleFor.delete(socket)
            continue
          }
          const total = (idleFor.get(socket) ?? -idle) + idle
          idleFor.set(socket, total)
          if (total >= idleCloseMs) socket.destroy()
        }
        if (connections.size === 0) return true
        if (now >= deadline) return false
        await sleep(Math.min(pollMs, Math.max(1, deadline - now)))
      }
    },

    /** Ends what the grace could not: every connection, in flight or not. */
    destroyAll (): void {
      for (const socket of connections) socket.destroy()
    }
  }
}

export type ConnectionDrain = ReturnType<typeof createConnectionDrain>
