import { getEventListeners } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { abortIsolatingFetch } from '../../client/abort-isolating-fetch.js'

/** A server answering /json at once, /slow never, /stream with the head of an event stream and nothing more. */
async function startServer (t: Test) {
  const hanging: ServerResponse[] = []
  const server = createServer((request, response) => {
    if (request.url === '/json') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}')
    hanging.push(response)
    if (request.url === '/stream') response.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n')
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const response of hanging) response.destroy()
    await new Promise(resolve => server.close(resolve))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const listenersOf = (signal: AbortSignal) => getEventListeners(signal, 'abort').length

t.test('a connection-long signal keeps no listener per finished request', async t => {
  const url = await startServer(t)
  const fetchIsolated = abortIsolatingFetch()
  const connection = new AbortController()
  for (let i = 0; i < 200; i++) {
    const response = await fetchIsolated(`${url}/json`, { method: 'POST', signal: connection.signal })
    t.equal(response.status, 200)
    await response.json()
  }
  t.equal(listenersOf(connection.signal), 0, 'no listener left on the shared signal after 200 requests')
})

t.test('aborting the shared signal still aborts a request in flight', async t => {
  const url = await startServer(t)
  const connection = new AbortController()
  const pending = abortIsolatingFetch()(`${url}/slow`, { signal: connection.signal })
  setTimeout(() => connection.abort(), 20)
  await t.rejects(pending, { name: 'AbortError' })
  t.equal(listenersOf(connection.signal), 0)
  await t.rejects(abortIsolatingFetch()(`${url}/json`, { signal: connection.signal }), { name: 'AbortError' }, 'and an already aborted signal aborts at once')
})

t.test('an event stream stays tied to the shared signal: closing the transport ends it', async t => {
  const url = await startServer(t)
  const connection = new AbortController()
  const response = await abortIsolatingFetch()(`${url}/stream`, { signal: connection.signal })
  t.equal(listenersOf(connection.signal), 1, 'the stream follows the shared signal')
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  await reader.read()
  connection.abort()
  await t.rejects(reader.read(), { name: 'AbortError' }, 'the stream ends with the abort')
})

t.test('a request without a signal goes through as it is', async t => {
  const url = await startServer(t)
  const response = await abortIsolatingFetch()(`${url}/json`)
  t.same(await response.json(), { jsonrpc: '2.0', id: 1, result: {} })
})
