import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { once } from 'node:events'
import t, { type Test } from 'tap'
import { closeStalledWrites } from '../../../lib/http/stalled-writes.js'

// Larger than what the kernel buffers on both ends of a loopback connection.
const LARGE_ANSWER = Buffer.alloc(64 * 1024 * 1024, 'x')
const STALL_MS = 300
const CHECK_EVERY_MS = 50

async function serve (t: Test, answer: Buffer, stallMs: number): Promise<{ server: Server, port: number }> {
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/plain')
    response.end(answer)
  })
  t.teardown(closeStalledWrites(server, { stallMs, checkEveryMs: CHECK_EVERY_MS }))
  t.teardown(() => server.closeAllConnections())
  t.teardown(() => server.close())
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, port: (server.address() as AddressInfo).port }
}

t.test('a client that stops reading a large answer is disconnected once nothing moved for the stall time', async t => {
  const { server, port } = await serve(t, LARGE_ANSWER, STALL_MS)
  const [serverSide] = await Promise.all([
    once(server, 'connection').then(([socket]) => socket as Socket),
    (async () => {
      const client = connect(port, '127.0.0.1')
      t.teardown(() => client.destroy())
      await once(client, 'connect')
      client.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n')
      // Read the first bytes, then stop: the rest fills the socket buffers and the server's queue.
      await once(client, 'data')
      client.pause()
    })()
  ])
  const started = Date.now()
  await once(serverSide, 'close')
  const waited = Date.now() - started
  t.ok(waited >= STALL_MS - CHECK_EVERY_MS, `not before the stall time (${waited} ms)`)
  t.ok(waited < STALL_MS * 10, `closed soon after it (${waited} ms)`)
})

t.test('a client that reads gets the whole answer', async t => {
  // Moving means the write completing: a stall time the answer easily fits in, even on a busy machine.
  const answer = LARGE_ANSWER.subarray(0, 8 * 1024 * 1024)
  const { port } = await serve(t, answer, 5000)
  const response = await fetch(`http://127.0.0.1:${port}/`)
  t.equal((await response.arrayBuffer()).byteLength, answer.length)
})

t.test('an idle connection is not a stalled one', async t => {
  const { port } = await serve(t, LARGE_ANSWER, STALL_MS)
  const idle = connect(port, '127.0.0.1')
  t.teardown(() => idle.destroy())
  await once(idle, 'connect')
  let closed = false
  idle.on('close', () => { closed = true })
  await new Promise(resolve => setTimeout(resolve, STALL_MS * 3))
  t.notOk(closed, 'open after three stall times with nothing to write')
})
