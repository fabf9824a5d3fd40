import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Pool } from 'undici'
import { poolFetch } from '../pool-fetch.js'

t.test('poolFetch answers as fetch would: status, headers, a JSON body read whole, an event stream as a stream, no body where none may be', async t => {
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', chunk => { body += String(chunk) })
    request.on('end', () => {
      if (request.url === '/empty') return response.writeHead(204).end()
      if (request.url === '/events') {
        response.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: first\n\n')
        return setTimeout(() => response.end('data: second\n\n'), 50)
      }
      response.writeHead(201, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] })
        .end(JSON.stringify({ method: request.method, accept: request.headers.accept, body }))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const pool = new Pool(origin, { connections: 1 })
  t.teardown(async () => { await pool.close(); server.close() })
  const fetchThroughPool = poolFetch(pool)

  const posted = await fetchThroughPool(`${origin}/mcp?x=1`, { method: 'POST', headers: new Headers({ accept: 'application/json' }), body: '{"a":1}' })
  t.equal(posted.status, 201)
  t.equal(posted.headers.get('content-type'), 'application/json')
  t.same(posted.headers.getSetCookie(), ['a=1', 'b=2'], 'repeated headers kept')
  t.same(await posted.json(), { method: 'POST', accept: 'application/json', body: '{"a":1}' })

  const empty = await fetchThroughPool(`${origin}/empty`)
  t.equal(empty.status, 204)
  t.equal(empty.body, null)

  const events = await fetchThroughPool(`${origin}/events`)
  const reader = (events.body as ReadableStream<Uint8Array>).getReader()
  const first = await reader.read()
  t.equal(Buffer.from(first.value as Uint8Array).toString(), 'data: first\n\n', 'the first event arrives before the stream ends')
  let rest = ''
  for (let chunk = await reader.read(); chunk.done !== true; chunk = await reader.read()) rest += Buffer.from(chunk.value).toString()
  t.equal(rest, 'data: second\n\n')
})
