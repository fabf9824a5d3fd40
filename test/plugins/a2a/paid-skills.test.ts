import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { AgentCard, SendMessageRequest, TaskState, type Task } from '@a2a-js/sdk'
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client'
import type { PaymentRequired } from '@x402/core/types'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { X402_EXTENSION_URI, X402_EXTENSION_URI_V02 } from '../../../lib/doors/a2a/x402-extension.js'
import { CATALOGUE } from '../../../lib/catalogue/catalogue.js'
import { PriceRecord, PriceResponse } from '../../../schemas/price.js'
import { TokenAnalysis } from '../../../schemas/token-analysis.js'
import { MODELS } from '../../../schemas/index.js'
import { a2aBuyer, artifactOf, DEVNET, payloadFor, X402_ACTIVATED, x402Of } from '../../fixtures/a2a-client.js'
import { assertOriginalReceipt } from '../../fixtures/original-receipt.js'
import { startX402Merchant } from '../../fixtures/x402-merchant.js'
import { sqliteOf } from '../../helper.js'
import { buyPriceThroughA2a } from '../../../client/examples/a2a-buy.js'
import { PROJECT_ROOT } from '../../../project.js'

FormatRegistry.Set('date-time', value => !Number.isNaN(Date.parse(value)))

// A bound for a loaded machine, not a measure: about a minute idle.
t.setTimeout(480_000)

// One merchant for the file, on the local chain: every case pays with its own buyer.
const priceApi = await startPriceApi()
t.teardown(() => priceApi.stop())
const m = await startX402Merchant(t, { PRICE_API_URL: priceApi.url, PRICE_CACHE_TTL_MS: '0', X402_SETTLEMENT_TIMEOUT_MS: '1000' })
const a2a = await a2aBuyer(m.url)
const db = sqliteOf(m.app)

const storedTasks = () => (db.prepare('SELECT count(*) FROM a2a_tasks').pluck().get() as number)
const auditRows = (signature: string) => db.prepare('SELECT service, resource, payer, amount, outcome, flow FROM audit_log WHERE signature = ? ORDER BY id').all(signature)
async function waitForAudit (signature: string) {
  for (let i = 0; i < 100 && auditRows(signature).length === 0; i++) await new Promise(resolve => setTimeout(resolve, 20))
  return auditRows(signature)
}
const requiredOf = (task: Task) => x402Of(task)['x402.payment.required'] as PaymentRequired
async function balances (address: Parameters<typeof m.tokenBalance>[0]) {
  return { merchant: await m.merchantBalance(), buyer: await m.tokenBalance(address), sol: await m.solBalance(address) }
}

t.test('the agent card: valid for the SDK, skills from the catalogue, the x402 extension required', async t => {
  const res = await fetch(`${m.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
  t.equal(res.status, 200)
  const json = await res.json()
  const card = AgentCard.fromJSON(json)
  t.same(AgentCard.toJSON(card), json, 'the card is exactly what the SDK\'s AgentCard type reads and writes back')
  t.same(card.skills.map(skill => skill.id), CATALOGUE.products.map(product => product.name), 'one skill per paid product')
  for (const skill of card.skills) {
    t.match(skill.description, /Costs 0\.\d+ USDC/, `${skill.id} states its price`)
    t.same([skill.inputModes, skill.outputModes], [['application/json'], ['application/json']])
    t.equal(JSON.parse(skill.examples[0]).skill, skill.id, 'an example data part')
  }
  t.match(card.capabilities?.extensions, [{ uri: X402_EXTENSION_URI, required: true }, { uri: X402_EXTENSION_URI_V02 }])
  t.match(card.description, `MPP (Solana charge) buyers pay the same products over HTTP and MCP (${m.url}/llms.txt)`, 'where MPP is taken')
  t.match(card.supportedInterfaces, [{ url: `${m.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }, { url: `${m.url}/a2a`, protocolVersion: '0.3' }])
  t.same(AgentCard.toJSON(await a2a.client.getAgentCard()), json, 'the SDK client reads the same card')

  const legacy = await (await fetch(`${m.url}/.well-known/agent-card.json`)).json()
  t.match(legacy, { url: `${m.url}/a2a`, preferredTransport: 'JSONRPC', protocolVersion: '0.3' }, 'without A2A-Version: the v0.3 shape')
  const manifest = await (await fetch(`${m.url}/.well-known/agent.json`)).json() as any
  t.equal(manifest.a2a_card_url, `${m.url}/.well-known/agent-card.json`, 'the manifest points to it and stays our manifest')
  t.match(await (await fetch(`${m.url}/llms.txt`)).text(), `${m.url}/.well-known/agent-card.json`)
  t.match((await (await fetch(`${m.url}/.well-known/x402`)).json() as any).instructions, '/.well-known/agent-card.json')
  t.match(JSON.stringify(await (await fetch(`${m.url}/openapi.json`)).json()), '/.well-known/agent-card.json')
})

t.test('a new task asks for payment: the same requirements as HTTP, a resource of its own, nothing run, nothing stored', async t => {
  priceApi.resetCalls()
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL', vs: 'USDC' })
  t.equal(task.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
  t.equal(x402Of(task)['x402.payment.status'], 'payment-required')
  const required = requiredOf(task)
  t.match(required, { x402Version: 2, resource: { url: 'a2a://skill/fetch-price?token=SOL&vs=USDC' } })
  const http = await fetch(`${m.url}/api/fetch-price/SOL`)
  const httpRequired = JSON.parse(Buffer.from(http.headers.get('payment-required') ?? '', 'base64').toString()) as PaymentRequired
  t.same(required.accepts, httpRequired.accepts, 'the accepts of the HTTP PAYMENT-REQUIRED')
  t.same(priceApi.requests().filter(r => r.path === '/price/v3'), [], 'the skill did not run')
  t.equal(storedTasks(), 0, 'unpaid traffic stores nothing')
  const again = await a2a.getTask(task.id)
  t.equal(again.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'GetTask rebuilds it from its id')
  t.same(requiredOf(again).accepts, required.accepts)
  const analysis = await a2a.start({ skill: 'analyze-token', address: m.paid.mint })
  t.match(requiredOf(analysis), { resource: { url: `a2a://skill/analyze-token?address=${m.paid.mint}` }, accepts: [{ amount: '100000' }] })
})

t.test('both skills paid end to end with the official x402 client: the route\'s JSON as artifact, the SettleResponse as receipt, exactly the price moved', async t => {
  const skills = [
    { input: { skill: 'fetch-price', token: 'SOL' }, price: 50_000n, model: PriceResponse, check: (doc: any) => doc.data.mintSymbol === 'SOL' },
    { input: { skill: 'analyze-token', address: m.paid.mint }, price: 100_000n, model: TokenAnalysis, check: (doc: any) => doc.mint === m.paid.mint }
  ]
  for (const skill of skills) {
    const buyer = await m.paid.newBuyer(1_000_000n)
    const task = await a2a.start(skill.input)
    const payload = await payloadFor(buyer, requiredOf(task), m.paid.chain.url)
    const before = await balances(buyer.address)
    const done = await a2a.pay(task.id, payload)
    t.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(x402Of(done)).slice(0, 300))
    t.equal(done.id, task.id, 'the same task')
    const document = artifactOf(done) as any
    t.same([...Value.Errors(skill.model, [PriceRecord, ...MODELS], document)].map(e => `${e.path} ${e.message}`), [], 'the HTTP route\'s document')
    t.ok(skill.check(document))
    const [receipt] = x402Of(done)['x402.payment.receipts']
    t.match(x402Of(done), { 'x402.payment.status': 'payment-completed' })
    t.match(receipt, { success: true, network: DEVNET, payer: buyer.address, transaction: String })
    const after = await balances(buyer.address)
    t.equal(after.merchant - before.merchant, skill.price, 'the merchant got exactly the price')
    t.equal(before.buyer - after.buyer, skill.price, 'the buyer paid exactly the price')
    t.equal(after.sol, before.sol, 'the buyer paid no SOL')
    t.match(await waitForAudit(receipt.transaction), [{ service: skill.input.skill, payer: buyer.address, amount: String(skill.price), outcome: 'DELIVERED', flow: 'a2a' }])
    t.equal(auditRows(receipt.transaction).length, 1, 'one audit row per payment')
    const kept = db.prepare('SELECT body FROM kept_answers WHERE signature = ?').pluck().get(receipt.transaction) as string
    t.same(artifactOf(done), JSON.parse(kept), 'the artifact is the answer the core kept')

    const read = await a2a.getTask(task.id)
    t.equal(read.status?.state, TaskState.TASK_STATE_COMPLETED, 'GetTask reads the completed task from the store')
    t.same(artifactOf(read), document)

    t.test('the same payload on a new task: refused, nothing moves', async t => {
      const other = await a2a.start(skill.input)
      const refused = await a2a.pay(other.id, payload)
      t.equal(refused.status?.state, TaskState.TASK_STATE_FAILED)
      t.match(x402Of(refused), { 'x402.payment.status': 'payment-failed', 'x402.payment.error': 'PAYMENT_ALREADY_USED' })
      t.same(await balances(buyer.address), after)
    })
  }
})

t.test('a v1 payload buys no skill (A2A carries x402 v2 only): X402_UNSUPPORTED', async t => {
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  const refused = await a2a.pay(task.id, { x402Version: 1, scheme: 'exact', network: 'solana-devnet', payload: { transaction: 'AQID' } })
  t.match(x402Of(refused), { 'x402.payment.status': 'payment-failed', 'x402.payment.error': 'X402_UNSUPPORTED' })
})

t.test('payments of other doors do not buy a skill, nor the other way round: X402_RESOURCE_MISMATCH, nothing moves', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const http = await fetch(`${m.url}/api/fetch-price/SOL`)
  const httpRequired = JSON.parse(Buffer.from(http.headers.get('payment-required') ?? '', 'base64').toString()) as PaymentRequired
  const httpPayload = await payloadFor(buyer, httpRequired, m.paid.chain.url)
  const before = await balances(buyer.address)
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  const refused = await a2a.pay(task.id, httpPayload)
  t.match(x402Of(refused), { 'x402.payment.status': 'payment-failed', 'x402.payment.error': 'X402_RESOURCE_MISMATCH' })

  const a2aPayload = await payloadFor(buyer, requiredOf(await a2a.start({ skill: 'fetch-price', token: 'SOL' })), m.paid.chain.url)
  const overHttp = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { 'payment-signature': Buffer.from(JSON.stringify(a2aPayload)).toString('base64') } })
  t.equal(overHttp.status, 402)
  t.match(await overHttp.json(), { code: 'X402_RESOURCE_MISMATCH' })
  const otherInput = await a2a.start({ skill: 'fetch-price', token: 'BONK' })
  t.match(x402Of(await a2a.pay(otherInput.id, a2aPayload)), { 'x402.payment.error': 'X402_RESOURCE_MISMATCH' }, 'nor another input of the same skill')
  t.same(await balances(buyer.address), before)
})

t.test('a message the merchant cannot read fails with the expected shape; the extension must be activated', async t => {
  await t.rejects(a2a.start({ skill: 'fetch-price' }), /token.*send one data part: \{ "skill": "fetch-price", "token", "vs" \(optional\) \}/)
  await t.rejects(a2a.start({ skill: 'buy-everything' }), /"skill" must be one of "fetch-price", "analyze-token".*e\.g\. \{"skill":"analyze-token","address":/)
  await t.rejects(a2a.start({ skill: 'analyze-token', address: 'not-a-mint' }), /address/)
  const noData = await fetch(`${m.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': X402_EXTENSION_URI },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'price of SOL please' }] } } })
  })
  const body = await noData.json()
  t.match(body, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: /no data part naming a skill; send one data part: \{ "skill": "fetch-price"/ } })
  const without = await fetch(`${m.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ data: { skill: 'fetch-price', token: 'SOL' } }] } } })
  })
  t.match(await without.json(), { id: 2, error: { message: /required extensions: https:\/\/github.com\/google-a2a\/a2a-x402\/v0.1/ } })
  const notJson = await fetch(`${m.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' })
  t.match(await notJson.json(), { error: { code: -32700 } })
})

t.test('a v0.3 client (message/send, X-A2A-Extensions with the v0.2 URI) buys through the compatibility layer', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const legacy = new LegacyJsonRpcTransport({ endpoint: `${m.url}/a2a` })
  const options = { serviceParameters: { 'X-A2A-Extensions': X402_EXTENSION_URI_V02 } }
  const message = (extra: Record<string, unknown>) => ({ messageId: crypto.randomUUID(), role: 1, contextId: '', taskId: '', metadata: undefined, extensions: [], referenceTaskIds: [], parts: [], ...extra })
  const part = { content: { $case: 'data' as const, value: { skill: 'fetch-price', token: 'SOL' } }, mediaType: 'application/json', filename: '', metadata: undefined }
  const task = await legacy.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message: message({ parts: [part] }) as any }, options) as Task
  t.equal(task.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
  const payload = await payloadFor(buyer, requiredOf(task), m.paid.chain.url)
  const before = await m.merchantBalance()
  const done = await legacy.sendMessage({
    tenant: '',
    configuration: undefined,
    metadata: undefined,
    message: message({ taskId: task.id, parts: [{ content: { $case: 'text', value: 'paying' }, mediaType: 'text/plain', filename: '', metadata: undefined }], metadata: { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload } }) as any
  }, options) as Task
  t.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED)
  t.match(artifactOf(done), { data: { mintSymbol: 'SOL' } })
  t.equal(await m.merchantBalance() - before, 50_000n)

  // The same exchange on the wire: v0.3 names and kind-tagged objects.
  const raw = await fetch(`${m.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-A2A-Extensions': X402_EXTENSION_URI },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'w', method: 'tasks/get', params: { id: task.id } })
  })
  t.equal(raw.headers.get('x-a2a-extensions'), X402_EXTENSION_URI, 'the extension is activated')
  t.match(await raw.json(), { id: 'w', result: { kind: 'task', status: { state: 'completed' }, artifacts: [{ parts: [{ kind: 'data' }] }] } })
})

t.test('cancelling a task that awaits payment: answered from its id, nothing stored, nothing kept', async t => {
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  const rows = storedTasks()
  const cancelled = await a2a.client.cancelTask({ id: task.id, tenant: '', metadata: undefined }, X402_ACTIVATED)
  t.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED)
  t.equal(cancelled.id, task.id)
  t.equal(storedTasks(), rows, 'nothing stored')
  t.equal((await a2a.getTask(task.id)).status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'the id still names the task awaiting payment')
})

t.test('the README\'s A2A example is the file the type check compiles, and it buys', async t => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Buying through A2A'))
  const shown = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  t.equal(shown, readFileSync(join(PROJECT_ROOT, 'client/examples/a2a-buy.ts'), 'utf8'), 'README shows client/examples/a2a-buy.ts as it is')
  t.ok((shown ?? '').split('\n').length <= 21, 'at most 20 lines')
  const buyer = await m.paid.newBuyer(1_000_000n)
  const before = await m.merchantBalance()
  const done = await buyPriceThroughA2a(m.url, buyer, m.paid.chain.url)
  t.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(x402Of(done)).slice(0, 300))
  t.match(artifactOf(done), { data: { mintSymbol: 'SOL', vsTokenSymbol: 'USDC' } })
  t.equal(await m.merchantBalance() - before, 50_000n)
})

/** Pays `task` with returnImmediately: the answer carries the task while it works, not the document. */
async function payReturningAtOnce (t: Test, taskId: string, payload: unknown) {
  const first = await a2a.client.sendMessage(SendMessageRequest.fromJSON({
    configuration: { returnImmediately: true },
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', taskId, parts: [{ text: 'paying' }], metadata: { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload } }
  }), X402_ACTIVATED) as Task
  t.not(first.status?.state, TaskState.TASK_STATE_COMPLETED, 'the first answer carries no document')
}

async function outcomeBecomes (signature: string, outcome: string) {
  for (let i = 0; i < 100 && (auditRows(signature)[0] as { outcome?: string } | undefined)?.outcome !== outcome; i++) await new Promise(resolve => setTimeout(resolve, 20))
  return auditRows(signature)
}

t.test('a returnImmediately purchase read with GetTask reached its buyer: the same payment on a new task is refused, charged once', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  const payload = await payloadFor(buyer, requiredOf(task), m.paid.chain.url)
  const before = await m.merchantBalance()
  await payReturningAtOnce(t, task.id, payload)
  let read = await a2a.getTask(task.id)
  for (let i = 0; i < 200 && read.status?.state !== TaskState.TASK_STATE_COMPLETED; i++) {
    await new Promise(resolve => setTimeout(resolve, 50))
    read = await a2a.getTask(task.id)
  }
  t.equal(read.status?.state, TaskState.TASK_STATE_COMPLETED, 'GetTask hands over the completed task')
  t.match(artifactOf(read), { data: { mintSymbol: 'SOL' } })
  const [receipt] = x402Of(read)['x402.payment.receipts']
  t.match(await outcomeBecomes(receipt.transaction, 'DELIVERED'), [{ outcome: 'DELIVERED', flow: 'a2a' }], 'its one row says delivered')
  t.equal(db.prepare('SELECT reached FROM kept_answers WHERE signature = ?').pluck().get(receipt.transaction), 1, 'the kept answer is marked reached')

  // A chain watcher who rebuilds the payload from the landed transaction opens its own task.
  const watcher = await a2a.pay((await a2a.start({ skill: 'fetch-price', token: 'SOL' })).id, payload)
  t.equal(watcher.status?.state, TaskState.TASK_STATE_FAILED)
  t.match(x402Of(watcher), { 'x402.payment.error': 'PAYMENT_ALREADY_USED' })
  t.same(watcher.artifacts, [], 'no document')
  t.equal(await m.merchantBalance() - before, 50_000n, 'charged once')
})

t.test('a returnImmediately purchase nobody read: the same payment on a new task gets it again, nothing charged twice', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const task = await a2a.start({ skill: 'fetch-price', token: 'SOL' })
  const payload = await payloadFor(buyer, requiredOf(task), m.paid.chain.url)
  const before = await m.merchantBalance()
  await payReturningAtOnce(t, task.id, payload)
  let rows: unknown[] = []
  for (let i = 0; i < 200 && rows.length === 0; i++) {
    await new Promise(resolve => setTimeout(resolve, 50))
    rows = db.prepare("SELECT outcome, flow, signature FROM audit_log WHERE flow = 'a2a' AND payer = ?").all(buyer.address)
  }
  t.match(rows, [{ outcome: 'CLIENT_ABORTED_AFTER_PAYMENT', flow: 'a2a' }], 'money moved, the document did not go out with an answer')
  const signature = (rows[0] as { signature: string }).signature

  const again = await a2a.pay((await a2a.start({ skill: 'fetch-price', token: 'SOL' })).id, payload)
  t.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED)
  t.equal(again.metadata?.['token-merchant/redelivered'], true)
  t.match(artifactOf(again), { data: { mintSymbol: 'SOL' } })
  t.match(x402Of(again)['x402.payment.receipts'], [{ transaction: signature }], 'the original receipt')
  await assertOriginalReceipt(t, m.app, signature, x402Of(again)['x402.payment.receipts'][0])
  t.equal(await m.merchantBalance() - before, 50_000n, 'charged once')
  t.match(await outcomeBecomes(signature, 'DELIVERED'), [{ outcome: 'DELIVERED' }], 'its one row now says delivered')
})
