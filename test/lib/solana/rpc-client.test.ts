import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } from '@solana/kit'
import t, { type Test } from 'tap'
import { createRpcClient } from '../../../lib/solana/rpc-client.js'
import { isRpcUnavailable } from '../../../lib/solana/rpc-errors.js'

const SLOT_ANSWER = JSON.stringify({ jsonrpc: '2.0', id: 0, result: 123 })

/** A stand-in node on 127.0.0.1 (under a path, as hosted RPCs put their key) that lets `answer` write each response. */
async function standIn (t: Test, answer: (response: ServerResponse, url: string) => void) {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    request.on('end', () => answer(response, request.url ?? ''))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/key-123?tenant=a`
}

async function failure (call: Promise<unknown>): Promise<unknown> {
  try {
    await call
  } catch (error) {
    return error
  }
  throw new Error('the call succeeded')
}

t.test('a JSON-RPC answer is the result, at the URL\'s path and query', async t => {
  const paths: string[] = []
  const url = await standIn(t, (response, path) => {
    paths.push(path)
    response.writeHead(200, { 'content-type': 'application/json' }).end(SLOT_ANSWER)
  })
  const rpc = createRpcClient(url, 2000)
  t.equal(await rpc.getSlot().send(), 123n)
  t.equal(await rpc.getSlot().send(), 123n, 'again, on the kept-alive connection')
  t.same(paths, ['/v1/key-123?tenant=a', '/v1/key-123?tenant=a'])
})

t.test('a node that never answers is given up after the timeout, as unavailable', async t => {
  const url = await standIn(t, () => {})
  const rpc = createRpcClient(url, 300)
  const startedAt = Date.now()
  const error = await failure(rpc.getSlot().send())
  const waited = Date.now() - startedAt
  t.ok(isRpcUnavailable(error), 'classified as the node\'s failure (503), never the buyer\'s')
  t.ok(waited >= 290 && waited < 1200, `gave up after the timeout (${waited} ms)`)
})

t.test('a node that sends its headers and then stalls the body is given up too', async t => {
  const url = await standIn(t, response => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.write('{"jsonrpc":"2.0",')
  })
  const rpc = createRpcClient(url, 300)
  t.ok(isRpcUnavailable(await failure(rpc.getSlot().send())))
})

t.test('the caller\'s abort signal ends the request at once', async t => {
  const url = await standIn(t, () => {})
  const rpc = createRpcClient(url, 10_000)
  const controller = new AbortController()
  const call = rpc.getSlot().send({ abortSignal: controller.signal })
  setTimeout(() => controller.abort(), 50)
  const startedAt = Date.now()
  await failure(call)
  t.ok(Date.now() - startedAt < 2000, 'not held until the 10 s timeout')
  const aborted = new AbortController()
  aborted.abort()
  await failure(rpc.getSlot().send({ abortSignal: aborted.signal }))
  t.pass('a signal aborted before the call ends it too')
})

t.test('an HTTP error keeps its status and Retry-After, like kit\'s transport', async t => {
  const url = await standIn(t, response => response.writeHead(429, { 'retry-after': '7' }).end('slow down'))
  const error = await failure(createRpcClient(url, 2000).getSlot().send())
  t.ok(isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR))
  if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    t.equal(error.context.statusCode, 429)
    t.equal(error.context.headers.get('retry-after'), '7')
  }
})

t.test('an answer that is not a JSON-RPC envelope is the node\'s failure', async t => {
  for (const body of ['<html>bad gateway</html>', '[1,2]', '{"jsonrpc":"2.0","id":0}']) {
    const url = await standIn(t, response => response.writeHead(200, { 'content-type': 'text/html' }).end(body))
    const error = await failure(createRpcClient(url, 2000).getSlot().send())
    t.ok(isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR) && error.context.statusCode === 502, body)
  }
})
