import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { createRpcClient } from '../../../lib/solana/rpc-client.js'
import { chainStatus } from '../../../lib/x402/settlement.js'

// A node that answers getSignatureStatuses with the status under test: a fork's view the local
// chain (one transaction per slot, never forked) cannot produce.
async function nodeAnswering (status: Record<string, unknown>): Promise<string> {
  const server = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk: Buffer) => { text += chunk.toString() })
    request.on('end', () => {
      const { id } = JSON.parse(text) as { id: unknown }
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result: { context: { slot: 1 }, value: [status] } }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const SIGNATURE = '1'.repeat(64)
const ERROR = { InstructionError: [0, { Custom: 1 }] }

t.test('a failure seen at processed is not final; at the payment commitment it is', async t => {
  const processed = createRpcClient(await nodeAnswering({ slot: 1, confirmations: 0, err: ERROR, status: { Err: ERROR }, confirmationStatus: 'processed' }), 2000)
  t.same(await chainStatus(processed, SIGNATURE, 'confirmed'), { state: 'processing' }, 'processed: may still land on another fork')
  const confirmed = createRpcClient(await nodeAnswering({ slot: 1, confirmations: 1, err: ERROR, status: { Err: ERROR }, confirmationStatus: 'confirmed' }), 2000)
  t.match(await chainStatus(confirmed, SIGNATURE, 'confirmed'), { state: 'failed' }, 'confirmed, payment commitment confirmed: failed')
  t.same(await chainStatus(confirmed, SIGNATURE, 'finalized'), { state: 'processing' }, 'confirmed, payment commitment finalized: not yet')
  const finalized = createRpcClient(await nodeAnswering({ slot: 1, confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'finalized' }), 2000)
  t.same(await chainStatus(finalized, SIGNATURE, 'finalized'), { state: 'landed' })
})
