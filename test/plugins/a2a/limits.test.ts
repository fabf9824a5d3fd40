import { generateKeyPairSigner } from '@solana/kit'
import t from 'tap'
import { X402_EXTENSION_URI } from '../../../lib/doors/a2a/x402-extension.js'
import { a2aBuyer, x402Of } from '../../fixtures/a2a-client.js'
import { build, sqliteOf } from '../../helper.js'

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
  t.match(x402Of(held), { 'x402.payment.status': 'payment-failed', 'x402.payment.error': 'RATE_LIMITED', 'token-merchant/retryAfterSeconds': Number }, 'the third failure is held back, before any RPC call')
  t.notOk('x402.payment.required' in x402Of(held), 'no accepts: the same payment is to be sent again, not a new one')
  t.match(held.status?.message?.parts[0]?.content, { value: /^RATE_LIMITED: .*retry the same payment on a new task in \d+ s/ })

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

t.test('unpaid A2A calls write no rows: cancels and declined terms are answered from the id, referenceTaskIds are bounded, nothing reaches stderr', async t => {
  const app = await build(t)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const db = sqliteOf(app)
  const stored = () => db.prepare('SELECT count(*) AS rows, coalesce(sum(length(body)), 0) AS bytes FROM a2a_tasks').get()
  const a2a = await a2aBuyer(url)
  const input = { skill: 'analyze-token', address: (await generateKeyPairSigner()).address }
  const call = async (method: string, params: Record<string, unknown>) => await (await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': X402_EXTENSION_URI },
    body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params })
  })).json() as any
  // Anything the SDK would print (console.warn/error) goes through process.stderr.
  const stderr: string[] = []
  const write = process.stderr.write.bind(process.stderr)
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => { stderr.push(String(chunk)); return (write as (...args: unknown[]) => boolean)(chunk, ...rest) }) as typeof process.stderr.write
  t.teardown(() => { process.stderr.write = write })

  for (let i = 0; i < 20; i++) {
    const task = await a2a.start(input)
    const cancelled = await call('CancelTask', { id: task.id })
    t.equal(cancelled.result?.status?.state, 'TASK_STATE_CANCELED', 'cancelled')
  }
  const declined = await call('SendMessage', { message: { messageId: 'd', role: 'ROLE_USER', taskId: (await a2a.start(input)).id, parts: [{ text: 'x'.repeat(14_000) }], metadata: { 'x402.payment.status': 'payment-rejected' } } })
  t.match(declined.result?.task, { status: { state: 'TASK_STATE_CANCELED', message: { metadata: { 'x402.payment.status': 'payment-rejected' } } } }, 'declined terms end the task')
  t.same(stored(), { rows: 0, bytes: 0 }, 'no task stored for unpaid traffic')

  const task = await a2a.start(input)
  const many = Array.from({ length: 2200 }, (_, i) => String(i))
  const refused = await call('SendMessage', { message: { messageId: 'r', role: 'ROLE_USER', taskId: task.id, referenceTaskIds: many, parts: [{ text: 'hi' }] } })
  t.match(refused.error, { code: -32602, message: /referenceTaskIds lists 2200 tasks; at most 8/, data: [{ metadata: { code: 'VALIDATION_ERROR' } }] }, 'refused before any store read')
  const forged = await call('SendMessage', { message: { messageId: 'g', role: 'ROLE_USER', taskId: task.id, referenceTaskIds: ['1', '2'], parts: [{ text: 'hi' }] } })
  t.match(forged.error, { code: -32602, message: /referenceTaskIds names "1", not a task of this merchant/ })
  const few = await call('SendMessage', { message: { messageId: 'f', role: 'ROLE_USER', taskId: task.id, referenceTaskIds: [task.id, (await a2a.start(input)).id], parts: [{ text: 'hi' }] } })
  t.equal(few.result?.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', 'tasks of ours are read as before')
  t.same(stderr.filter(line => !line.startsWith('{')), [], 'nothing outside pino on stderr')
})
