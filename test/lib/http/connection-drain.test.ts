// The connection drain on a real HTTP server over loopback, with a raw socket as the kept-alive
// client so the test controls exactly when each byte is sent.
import { createServer } from 'node:http'
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { createConnectionDrain } from '../../../lib/http/connection-drain.js'

const IDLE_CLOSE_MS = 300

async function startServer (t: Test) {
  const server = createServer((_request, response) => response.end('ok'))
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return { server, port: (server.address() as { port: number }).port }
}

/** Everything the server sends on the socket until it closes it, as text. */
function received (socket: Socket): Promise<string> {
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => { text += chunk })
  return new Promise(resolve => socket.on('close', () => resolve(text)))
}

function request (socket: Socket): void {
  socket.write('GET / HTTP/1.1\r\nHost: merchant\r\n\r\n')
}

/** Blocks the whole process, as a loaded machine or a long garbage collection does. */
function stall (ms: number): void {
  const end = Date.now() + ms
  while (Date.now() < end);
}

/** A kept-alive client that got one answer, then the server's drain begun. */
async function drainingAfterOneAnswer (t: Test) {
  const { server, port } = await startServer(t)
  const drain = createConnectionDrain(server, { idleCloseMs: IDLE_CLOSE_MS, pollMs: 25 })
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  const answers = received(socket)
  request(socket)
  while (socket.bytesRead === 0) await sleep(5)
  drain.begin()
  return { drain, socket, answers }
}

t.test('a request sent while the process stalls is answered, not cut as idle', async (t) => {
  const { drain, socket, answers } = await drainingAfterOneAnswer(t)
  const settled = drain.settle(10_000)
  await sleep(60) // the drain has seen the connection idle
  // Sent, then the process stalls for longer than the idle close. Run from the check phase so
  // the drain's timer comes before the event loop reads the socket, as after a real stall.
  await new Promise<void>(resolve => setImmediate(() => {
    request(socket)
    stall(IDLE_CLOSE_MS * 2)
    resolve()
  }))

  const text = await answers
  t.equal(text.match(/HTTP\/1\.1 200 OK/g)?.length, 2, 'both requests answered')
  t.match(text, /HTTP\/1\.1 200 OK[\s\S]*connection: close/i, 'the second with Connection: close')
  t.equal(await settled, true, 'the drain ends once the client went')
})

t.test('a connection idle for the idle close is closed, without waiting for the grace', async (t) => {
  const { drain, answers } = await drainingAfterOneAnswer(t)
  t.equal(await drain.settle(10_000), true, 'every connection closed within the grace')
  t.equal(drain.open, 0)
  t.equal((await answers).match(/HTTP\/1\.1 200 OK/g)?.length, 1, 'the answer before the drain arrived whole')
})
