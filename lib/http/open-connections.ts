import type { Server } from 'node:http'
import type { Socket } from 'node:net'

const tracked = new WeakMap<Server, Set<Socket>>()

/**
 * The server's open connections, kept as they open and close: one set per server, shared by
 * whoever reads it (the drain, the stalled-write check). It costs a connection, never a request.
 */
export function openConnections (server: Server): ReadonlySet<Socket> {
  let connections = tracked.get(server)
  if (connections === undefined) {
    const open = new Set<Socket>()
    server.on('connection', (socket: Socket) => {
      open.add(socket)
      socket.once('close', () => open.delete(socket))
    })
    tracked.set(server, open)
    connections = open
  }
  return connections
}
