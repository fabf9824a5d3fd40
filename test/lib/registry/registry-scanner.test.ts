import { join } from 'node:path'
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import t, { type Test } from 'tap'
import { registerAgent, registryReferenceInstruction } from '../../../client/register.js'
import { openDatabase } from '../../../db/sqlite/open-database.js'
import { MEMO_P_PROGRAM, MEMO_V1_PROGRAM, MEMO_V3_PROGRAM, startLocalnet, type Localnet } from '@token-merchant/localnet'
import { createRegistryRepository } from '../../../db/sqlite/registry-repository.js'
import { createRegistryScanner } from '../../../lib/registry/registry-scanner.js'
import { createRpcBatchClient, type RpcBatchClient } from '../../../lib/solana/rpc-batch.js'
import { isRpcUnavailable, rpcUnavailable } from '../../../lib/solana/rpc-errors.js'
import { testFolder } from '../../fixtures/test-folder.js'

const memo = (programAddress: Address, text: string): Instruction => ({ programAddress, accounts: [], data: new TextEncoder().encode(text) })
const registration = (name: string, extra = '') => `{"agent":"${name}","manifest":"https://${name}.example/agent.json","v":1${extra}}`

/** A fresh registry address on the chain, with a scanner and repository on a fresh SQLite file. */
async function setUp (t: Test, net: Localnet) {
  const registryAddress = (await generateKeyPairSigner()).address
  const db = openDatabase(join(testFolder(t), 'registry.db'))
  t.teardown(() => db.close())
  const repository = createRegistryRepository(db)
  const key = { network: 'localnet', registryAddress }
  const transactions = createRpcBatchClient({ url: net.url, timeoutMs: 5000 })
  const scanner = createRegistryScanner({ rpc: net.rpc, transactions, repository, key, callsPerRequest: 100, requestsInFlight: 4, maxPages: 100 })
  // Sends instructions that mention the registry (the reference transfer first), as any wallet could.
  const send = async (wallet: KeyPairSigner, instructions: Instruction[]) =>
    await net.sendInstructions([registryReferenceInstruction(wallet, registryAddress), ...instructions], [wallet], { skipPreflight: true })
  const list = async () => (await repository.listAgents(key)).map(agent => agent.name)
  return { registryAddress, repository, key, transactions, scanner, send, list }
}

t.test('the scanner reads the registry history', async t => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const [alice, bob, carol] = await Promise.all([net.createWallet(), net.createWallet(), net.createWallet()])
  const { registryAddress, repository, key, scanner, send, list } = await setUp(t, net)
  const fetchedAt = '2026-01-01T00:00:00.000Z'

  const alpha = await registerAgent({ rpc: net.rpc, signer: alice, registryAddress, name: 'alpha', manifestUrl: 'https://alpha.example/agent.json', pollIntervalMs: 20 })
  await send(bob, [memo(MEMO_V1_PROGRAM, registration('beta'))])
  await send(carol, [memo(MEMO_V3_PROGRAM, 'gm'), memo(MEMO_P_PROGRAM, registration('gamma'))])
  // Not registrations: every one must be skipped without failing the listing.
  const skipped = [
    'register me', registration('bad-v', '').replace('"v":1', '"v":"1"'), '{"agent":7,"manifest":"https://x.example","v":1}',
    '{"agent":"no-manifest","v":1}', '{"agent":"ftp","manifest":"ftp://x.example/a.json","v":1}',
    registration('n'.repeat(65)), '[1,2,3]'
  ]
  for (const text of skipped) await send(bob, [memo(MEMO_V3_PROGRAM, text)])
  await send(bob, [memo(MEMO_V3_PROGRAM, '{"hello":"world"}'), memo(MEMO_V3_PROGRAM, registration('second-json'))])
  await send(bob, [memo(MEMO_P_PROGRAM, registration('p-memo-only'))])
  await send(bob, [])
  // Fails on chain (the transfer exceeds the balance), memo and all.
  await send(alice, [memo(MEMO_V3_PROGRAM, registration('failed')), getTransferSolInstruction({ source: alice, destination: bob.address, amount: 10n ** 15n })])
  // Memos the signature list reports: alpha, beta, gamma's "gm", the 7 skipped, the two-JSON one.
  const withReportedMemo = 3 + skipped.length + 1

  net.resetStats()
  const cold = await scanner.scan(fetchedAt)
  t.same(cold, { pages: 1, listed: 3 + skipped.length + 4, requests: 1, fetched: withReportedMemo, registrations: 3 }, 'one batch request')
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: withReportedMemo }, 'no memo or failed: never fetched')
  t.same(await list(), ['gamma', 'beta', 'alpha'], 'newest first; v1 and the new memo address count when fetched')
  const [, beta, first] = await repository.listAgents(key)
  t.equal(first.signature, alpha)
  t.equal(first.wallet, alice.address, 'wallet is the fee payer')
  t.equal(beta.wallet, bob.address)
  t.equal(beta.manifest_url, 'https://beta.example/agent.json')
  t.ok(Number.isInteger(first.timestamp) && Math.abs((first.timestamp as number) - net.now()) < 60, 'timestamp is the block time')
  t.equal((await repository.scanState(key)).fetchedAt, fetchedAt)

  t.test('a later read fetches only what is new', async t => {
    await registerAgent({ rpc: net.rpc, signer: carol, registryAddress, name: 'delta', manifestUrl: 'https://delta.example/agent.json', pollIntervalMs: 20 })
    await send(alice, [memo(MEMO_V3_PROGRAM, registration('epsilon'))])
    net.resetStats()
    t.same(await scanner.scan(fetchedAt), { pages: 1, listed: 2, requests: 1, fetched: 2, registrations: 2 })
    t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 2 })
    t.same(await list(), ['epsilon', 'delta', 'gamma', 'beta', 'alpha'])

    net.resetStats()
    t.same(await scanner.scan('2026-01-01T00:01:00.000Z'), { pages: 1, listed: 0, requests: 0, fetched: 0, registrations: 0 })
    t.same(net.stats(), { getSignaturesForAddress: 1 }, 'nothing new: one call')
    t.equal((await repository.scanState(key)).fetchedAt, '2026-01-01T00:01:00.000Z')
  })
})

t.test('a read cut short by the node keeps what it read and resumes there', async t => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const wallet = await net.createWallet()
  const { repository, key, transactions, send, list } = await setUp(t, net)
  const names = Array.from({ length: 10 }, (_, i) => `r${i}`)
  for (const name of names) await send(wallet, [memo(MEMO_V3_PROGRAM, registration(name))])

  // Batches of 3, one at a time; the node starts answering 429 from the second batch on, as a public RPC does.
  let requests = 0
  const limited: RpcBatchClient = {
    async call (method, paramsList, abortSignal) {
      if (++requests > 1) net.failMethod('getTransaction', { httpStatus: 429, retryAfter: 3 })
      return await transactions.call(method, paramsList, abortSignal)
    }
  }
  const scanner = (client: RpcBatchClient) => createRegistryScanner({ rpc: net.rpc, transactions: client, repository, key, callsPerRequest: 3, requestsInFlight: 1, maxPages: 100 })

  const error = await scanner(limited).scan('2026-01-01T00:00:00.000Z').catch((e: unknown) => e)
  t.ok(isRpcUnavailable(error), 'the read fails as RPC unavailable')
  t.equal(rpcUnavailable(error).headers?.['retry-after'], '3', 'with the node\'s Retry-After')
  t.match(await repository.scanState(key), { fetchedAt: null, resume: { position: 3 } }, 'the first batch is stored')
  t.same(await list(), ['r9', 'r8', 'r7'])

  // A node that answers each call with a JSON-RPC server error (behind, unhealthy): nothing more is stored.
  net.failMethod('getTransaction', { code: -32005, message: 'Node is behind by 42 slots' })
  const behind = await scanner(transactions).scan('2026-01-01T00:00:05.000Z').catch((e: unknown) => e)
  t.ok(isRpcUnavailable(behind), 'a per-call server error is RPC unavailable too')
  t.match(await repository.scanState(key), { fetchedAt: null, resume: { position: 3 } })

  net.failMethod('getTransaction', null)
  net.resetStats()
  t.same(await scanner(transactions).scan('2026-01-01T00:00:10.000Z'), { pages: 1, listed: 7, requests: 3, fetched: 7, registrations: 7 })
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 7 }, 'nothing read twice')
  t.same(await list(), [...names].reverse())
  t.match(await repository.scanState(key), { fetchedAt: '2026-01-01T00:00:10.000Z', resume: null })
})
