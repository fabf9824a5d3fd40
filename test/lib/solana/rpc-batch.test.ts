import { subscribe } from 'node:diagnostics_channel'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getBase58Decoder, isSolanaError, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS, SOLANA_ERROR__JSON_RPC__INVALID_REQUEST, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, type Address } from '@solana/kit'
import t, { type Test } from 'tap'
import { MEMO_V3_PROGRAM, startLocalnet } from '@token-merchant/localnet'
import { createRpcBatchClient, RpcBatchAnswerError } from '../../../lib/solana/rpc-batch.js'
import { isRpcUnavailable, rpcUnavailable } from '../../../lib/solana/rpc-errors.js'

const CONFIG = { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }

interface FetchedTransaction { slot: number, blockTime: number | null, transaction: { message: { accountKeys: string[] } } }

// HTTP requests this process sends; the chain's stats() counts the JSON-RPC calls inside them.
let httpRequests = 0
subscribe('undici:request:create', () => { httpRequests++ })

/** A stand-in node on 127.0.0.1 that answers every POST with `answer(body)`; keeps the bodies it got. */
async function standIn (t: Test, answer: (body: any) => { status?: number, text: string }) {
  const received: unknown[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = ''
    request.on('data', (chunk: Buffer) => { text += chunk.toString('utf8') })
    request.on('end', () => {
      const body = JSON.parse(text)
      received.push(body)
      const { status = 200, text: reply } = answer(body)
      response.writeHead(status, { 'content-type': 'application/json' }).end(reply)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }
}

t.test('on the local chain', async t => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const wallet = await net.createWallet()
  const memo = (text: string) => ({ programAddress: MEMO_V3_PROGRAM as Address, accounts: [], data: new TextEncoder().encode(text) })
  const [first, second] = [await net.sendInstructions([memo('one')], [wallet]), await net.sendInstructions([memo('two')], [wallet])]
  const client = createRpcBatchClient({ url: net.url, timeoutMs: 5000 })

  t.test('a batch of found, unknown and malformed signatures: one HTTP request, each call settled on its own', async t => {
    const neverSent = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64)))
    net.resetStats()
    httpRequests = 0
    const results = await client.call<FetchedTransaction | null>('getTransaction', [[second, CONFIG], [neverSent, CONFIG], ['not-a-signature', CONFIG], [first, CONFIG]])
    t.equal(httpRequests, 1, 'one HTTP request')
    t.same(net.stats(), { getTransaction: 4 }, 'four calls')
    t.same(results.map(result => result.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
    const [found, missing, malformed, earlier] = results
    t.equal(missing.status === 'fulfilled' && missing.value, null, 'an unknown signature is null')
    t.ok(malformed.status === 'rejected' && isSolanaError(malformed.reason, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS), 'a malformed one is its own JSON-RPC error')
    t.notOk(malformed.status === 'rejected' && isRpcUnavailable(malformed.reason), 'and not the node being unavailable')
    if (found.status !== 'fulfilled' || found.value === null || earlier.status !== 'fulfilled' || earlier.value === null) throw new Error('not found')
    t.equal(found.value.transaction.message.accountKeys[0], wallet.address, 'results in the order asked')
    t.ok(Number.isSafeInteger(found.value.slot) && found.value.slot > earlier.value.slot, 'slots are plain numbers')
    t.type(found.value.blockTime, 'number')
    t.same(await client.call('getTransaction', []), [], 'nothing to ask: no request')
    t.equal(httpRequests, 1)
  })

  t.test('HTTP errors are the transport errors kit raises, with Retry-After', async t => {
    net.failMethod('getTransaction', { httpStatus: 429, retryAfter: 7 })
    t.teardown(() => net.failMethod('getTransaction', null))
    const limited = await client.call('getTransaction', [[first, CONFIG], [second, CONFIG]]).catch((e: unknown) => e)
    t.ok(isSolanaError(limited, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR) && limited.context.statusCode === 429, '429')
    t.ok(isRpcUnavailable(limited))
    t.equal(rpcUnavailable(limited).headers?.['retry-after'], '7', 'the node\'s Retry-After reaches the client')

    net.failMethod('getTransaction', { httpStatus: 503 })
    const down = await client.call('getTransaction', [[first, CONFIG]]).catch((e: unknown) => e)
    t.ok(isSolanaError(down, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR) && down.context.statusCode === 503, '503')
    t.ok(isRpcUnavailable(down))
  })

  t.test('a JSON-RPC server error on every call rejects each call as unavailable', async t => {
    net.failMethod('getTransaction', { code: -32005, message: 'Node is behind by 42 slots' })
    t.teardown(() => net.failMethod('getTransaction', null))
    const results = await client.call('getTransaction', [[first, CONFIG], [second, CONFIG]])
    t.same(results.map(result => result.status === 'rejected' && isRpcUnavailable(result.reason)), [true, true])
  })

  t.test('a slow node times out as unavailable; so does the caller\'s abort', async t => {
    net.setLatency(300)
    t.teardown(() => net.setLatency(0))
    const impatient = createRpcBatchClient({ url: net.url, timeoutMs: 100 })
    const timedOut = await impatient.call('getTransaction', [[first, CONFIG], [second, CONFIG]]).catch((e: unknown) => e)
    t.match(timedOut, { name: 'TimeoutError' })
    t.ok(isRpcUnavailable(timedOut))
    const shutdown = new AbortController()
    setTimeout(() => shutdown.abort(), 50)
    const aborted = await client.call('getTransaction', [[first, CONFIG]], shutdown.signal).catch((e: unknown) => e)
    t.match(aborted, { name: 'AbortError' }, 'the caller\'s signal also ends the request')
  })
})

t.test('an unreachable node is unavailable', async t => {
  const error = await createRpcBatchClient({ url: 'http://127.0.0.1:9', timeoutMs: 2000 }).call('getSlot', [[], []]).catch((e: unknown) => e)
  t.ok(isRpcUnavailable(error))
})

t.test('answers are matched by id, not by order', async t => {
  const node = await standIn(t, body => ({ text: JSON.stringify([...body].reverse().map((request: { id: number, params: [number] }) => ({ jsonrpc: '2.0', id: request.id, result: request.params[0] * 10 }))) }))
  const client = createRpcBatchClient({ url: node.url, timeoutMs: 2000 })
  t.same(await client.call('times', [[1], [2], [3]]), [1, 2, 3].map(n => ({ status: 'fulfilled', value: n * 10 })))
  t.same(await client.call('times', [[4], [5]]), [{ status: 'fulfilled', value: 40 }, { status: 'fulfilled', value: 50 }], 'ids stay unique across calls')
  const ids = (node.received as Array<Array<{ id: number }>>).flat().map(request => request.id)
  t.equal(new Set(ids).size, 5)
})

t.test('one call is sent as a plain request, not a batch of one', async t => {
  const node = await standIn(t, body => ({ text: JSON.stringify({ jsonrpc: '2.0', id: body.id, result: 'pong' }) }))
  const client = createRpcBatchClient({ url: node.url, timeoutMs: 2000 })
  t.same(await client.call('ping', [[]]), [{ status: 'fulfilled', value: 'pong' }])
  t.match(node.received, [{ jsonrpc: '2.0', method: 'ping', params: [] }])
  t.notOk(Array.isArray(node.received[0]))
})

t.test('answers that do not answer the batch', async t => {
  let reply = ''
  const node = await standIn(t, () => ({ text: reply }))
  const client = createRpcBatchClient({ url: node.url, timeoutMs: 2000 })

  reply = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } })
  const refused = await client.call('getTransaction', [['a'], ['b']]).catch((e: unknown) => e)
  t.ok(isSolanaError(refused, SOLANA_ERROR__JSON_RPC__INVALID_REQUEST), 'a batch refused as a whole throws the node\'s error')
  t.notOk(isRpcUnavailable(refused), 'a batch size the provider refuses is a configuration problem, not an outage')

  reply = JSON.stringify([{ jsonrpc: '2.0', id: 1_000_000, result: 1 }])
  t.match(await client.call('getTransaction', [['a'], ['b']]).catch((e: unknown) => e), RpcBatchAnswerError, 'responses missing')

  reply = '<html>gateway</html>'
  t.match(await client.call('getTransaction', [['a'], ['b']]).catch((e: unknown) => e), { name: 'RpcBatchAnswerError', message: /not JSON/ })
})
