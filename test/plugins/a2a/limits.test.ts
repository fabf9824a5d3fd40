import { generateKeyPairSigner } from '@solana/kit'
import t from 'tap'
import { X402_EXTENSION_URI } from '../../../lib/doors/a2a/x402-extension.js'
import { a2aBuyer, x402Of } from '../../fixtures/a2a-client.js'
import { build } from '../../helper.js'

// The limits of every route apply to POST /a2a: the rate limit, the body limit, and
// PROOF_FAILURE_LIMIT for payments a client got refused. Refusals here come before any RPC call,
// so the app needs no chain.
t.test('PROOF_FAILURE_LIMIT, the rate limit and the body limit hold for A2A as for HTTP', async t => {
  const app = await build(t, { PROOF_FAILURE_LIMIT: '2', RATE_LIMIT_MAX: '12', BODY_LIMIT_BYTES: '4096' })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const a2a = await a2aBuyer(url)
  const mint = (await generateKeyPairSigner()).address
  const input = { skill: 'analyze-token', address: mint }

  for (let i = 0; i < 2; i++) {
    const refused = await a2a.pay((await a2a.start(input)).id, 'not a payload')
    t.match(x402Of(refused), { 'x402.payment.status': 'payment-failed', 'x402.payment.error': 'X402_INVALID_PAYLOAD' })
  }
  const held = await a2a.pay((await a2a.start(input)).id, 'not a payload')
  t.match(x402Of(held), { 'x402.payment.status': 'payment-required', 'x402.payment.error': 'RATE_LIMITED' }, 'the third failure is held back, before any RPC call')
  t.match(x402Of(held)['x402.payment.required'], { error: /^RATE_LIMITED: .*retry the same payment in \d+ s/ })

  const big = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': X402_EXTENSION_URI },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(5000) }] } } })
  })
  t.equal(big.status, 413)
  t.match(await big.json(), { code: 'PAYLOAD_TOO_LARGE', requestId: String })

  let limited: Response | undefined
  for (let i = 0; i < 12 && limited === undefined; i++) {
    const res = await fetch(`${url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tasks/get', params: { id: 'none' } }) })
    if (res.status === 429) limited = res
  }
  t.ok(limited, 'the rate limit answers 429')
  t.match(await limited?.json(), { code: 'RATE_LIMITED' })
})

t.test('no listing of other buyers\' tasks, no streaming: answered as JSON-RPC errors', async t => {
  const app = await build(t)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const call = async (method: string, params: Record<string, unknown>) => await (await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': X402_EXTENSION_URI },
    body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params })
  })).json()
  t.match(await call('ListTasks', {}), { id: 'ListTasks', error: { message: /ListTasks is not offered/ } })
  t.match(await call('SendStreamingMessage', { message: { messageId: 's', role: 'ROLE_USER', parts: [{ data: { skill: 'fetch-price', token: 'SOL' } }] } }),
    { id: 'SendStreamingMessage', error: { message: /[Ss]treaming is not supported/ } })
  t.match(await call('GetTask', { id: 'tm1.not-ours' }), { error: { message: /not found/i } }, 'an id that is not ours names no task')
})
