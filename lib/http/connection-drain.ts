import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { Server as NetServer, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

export interface ConnectionDrainOptions {
  /**
   * A kept-alive connection with no request for this long is closed during a drain. An active
   * client sends its next request well within it (and gets `Connection: close` on the answer);
   * closing a connection the moment it falls idle races that request, which then fails.
   */
  idleCloseMs?: number
  pollMs?: number
}

interface ConnectionState {
  requests: Set<ServerResponse>
  idleSince: number
}

export const DEFAULT_IDLE_CLOSE_MS = 1000

/**
 * Drains an HTTP server without failing a request. `begin()` stops accepting connections
 * (under a cluster master, as PM2 runs it, the master stops handing this worker new ones) but,
 * unlike http.Server.close(), leaves kept-alive connections open: requests still arriving on them
 * are answered, with `Connection: close`, so each client moves to another worker after its
 * answer rather than meeting a reset. `settle()` waits for the connections to go.
 */
export function createConnectionDrain (server: Server, options: ConnectionDrainOptions = {}) {
  const { idleCloseMs = DEFAULT_IDLE_CLOSE_MS, pollMs = 25 } = options
  const connections = new Map<Socket, ConnectionState>()
  let draining = false

  server.on('connection', (socket: Socket) => {
    connections.set(socket, { requests: new Set(), idleSince: Date.now() })
    socket.once('close', () => connections.delete(socket))
  })

  // Ahead of the application's listener, so the header is there before any hook writes.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const state = connections.get(request.socket)
    if (draining) response.setHeader('connection', 'close')
    if (state === undefined) return
    state.requests.add(response)
    response.once('close', () => {
      state.requests.delete(response)
      state.idleSince = Date.now()
    })
  })

  function inFlight (): number {
    let count = 0
    for (const state of connections.values()) count += state.requests.size
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
      for (const state of connections.values()) {
        for (const response of state.requests) if (!response.headersSent) response.setHeader('connection', 'close')
      }
      // net.Server's close: http.Server's would also drop every idle kept-alive connection at once.
      if (server.listening) NetServer.prototype.close.call(server)
    },

    /**
     * Resolves true once every connection is closed, false when `graceMs` ran out first. Idle
     * connections are closed once they stayed idle for idleCloseMs; busy ones close after their
     * answer.
     */
    async settle (graceMs: number): Promise<boolean> {
      const deadline = Date.now() + graceMs
      for (;;) {
        const now = Date.now()
        for (const [socket, state] of connections) {
          if (state.requests.size === 0 && now - state.idleSince >= idleCloseMs) socket.destroy()
        }
        if (connections.size === 0) return true
        if (now >= deadline) return false
        await sleep(Math.min(pollMs, Math.max(1, deadline - now)))
      }
    },

    /** Ends what the grace could not: every connection, in flight or not. */
    destroyAll (): void {
      for (const socket of connections.keys()) socket.destroy()
    }
  }
}

export type ConnectionDrain = ReturnType<typeof createConnectionDrain>
