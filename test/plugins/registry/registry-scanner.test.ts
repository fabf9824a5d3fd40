import { join } from 'node:path'
import { createDefaultRpcTransport, createSolanaRpcFromTransport, generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner, type RpcTransport } from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import t, { type Test } from 'tap'
import { registerAgent, registryReferenceInstruction } from '../../../client/register.js'
import { openDatabase } from '../../../db/open-database.js'
import { MEMO_P_PROGRAM, MEMO_V1_PROGRAM, MEMO_V3_PROGRAM, startLocalnet, type Localnet } from '../../../localnet/index.js'
import { createRegistryRepository } from '../../../plugins/app/registry/registry-repository.js'
import { createRegistryScanner, type RegistryRpc } from '../../../plugins/app/registry/registry-scanner.js'
import { isRpcUnavailable } from '../../../plugins/app/solana/rpc-errors.js'

const memo = (programAddress: Address, text: string): Instruction => ({ programAddress, accounts: [], data: new TextEncoder().encode(text) })
const registration = (name: string, extra = '') => `{"agent":"${name}","manifest":"https://${name}.example/agent.json","v":1${extra}}`

/** A fresh registry address on the chain, with a scanner and repository on a fresh SQLite file. */
async function setUp (t: Test, net: Localnet, batchSize = 100) {
  const registryAddress = (await generateKeyPairSigner()).address
  const db = openDatabase(join(t.testdir(), 'registry.db'))
  t.teardown(() => db.close())
  const repository = createRegistryRepository(db)
  const key = { network: 'localnet', registryAddress }
  const scanner = createRegistryScanner({ rpc: net.rpc, repository, key, concurrency: 8, batchSize })
  // Sends instructions that mention the registry (the reference transfer first), as any wallet could.
  const send = async (wallet: KeyPairSigner, instructions: Instruction[]) =>
    await net.sendInstructions([registryReferenceInstruction(wallet, registryAddress), ...instructions], [wallet], { skipPreflight: true })
  const list = () => repository.listAgents(key).map(agent => agent.name)
  return { registryAddress, repository, key, scanner, send, list }
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
  t.same(cold, { pages: 1, listed: 3 + skipped.length + 4, fetched: withReportedMemo, registrations: 3 })
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: withReportedMemo }, 'no memo or failed: never fetched')
  t.same(list(), ['gamma', 'beta', 'alpha'], 'newest first; v1 and the new memo address count when fetched')
  const [, beta, first] = repository.listAgents(key)
  t.equal(first.signature, alpha)
  t.equal(first.wallet, alice.address, 'wallet is the fee payer')
  t.equal(beta.wallet, bob.address)
  t.equal(beta.manifest_url, 'https://beta.example/agent.json')
  t.ok(Number.isInteger(first.timestamp) && Math.abs((first.timestamp as number) - net.now()) < 60, 'timestamp is the block time')
  t.equal(repository.scanState(key).fetchedAt, fetchedAt)

  t.test('a later read fetches only what is new', async t => {
    await registerAgent({ rpc: net.rpc, signer: carol, registryAddress, name: 'delta', manifestUrl: 'https://delta.example/agent.json', pollIntervalMs: 20 })
    await send(alice, [memo(MEMO_V3_PROGRAM, registration('epsilon'))])
    net.resetStats()
    t.same(await scanner.scan(fetchedAt), { pages: 1, listed: 2, fetched: 2, registrations: 2 })
    t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 2 })
    t.same(list(), ['epsilon', 'delta', 'gamma', 'beta', 'alpha'])

    net.resetStats()
    t.same(await scanner.scan('2026-01-01T00:01:00.000Z'), { pages: 1, listed: 0, fetched: 0, registrations: 0 })
    t.same(net.stats(), { getSignaturesForAddress: 1 }, 'nothing new: one call')
    t.equal(repository.scanState(key).fetchedAt, '2026-01-01T00:01:00.000Z')
  })
})

t.test('a read cut short by a rate limit keeps what it read and resumes there', async t => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const wallet = await net.createWallet()
  const { repository, key, send, list } = await setUp(t, net)
  const names = Array.from({ length: 10 }, (_, i) => `r${i}`)
  for (const name of names) await send(wallet, [memo(MEMO_V3_PROGRAM, registration(name))])

  // The node starts answering 429 from the fifth getTransaction on, as a public RPC does.
  const transport = createDefaultRpcTransport({ url: net.url })
  let calls = 0
  const limited = createSolanaRpcFromTransport((async request => {
    if ((request.payload as { method: string }).method === 'getTransaction' && ++calls > 4) net.failMethod('getTransaction', { httpStatus: 429 })
    return await transport(request)
  }) as RpcTransport)
  const scanner = (rpc: RegistryRpc) => createRegistryScanner({ rpc, repository, key, concurrency: 1, batchSize: 3 })

  const error = await scanner(limited).scan('2026-01-01T00:00:00.000Z').catch((e: unknown) => e)
  t.ok(isRpcUnavailable(error), 'the read fails as RPC unavailable')
  t.match(repository.scanState(key), { fetchedAt: null, resume: { position: 4 } }, 'a whole batch and one more are stored')
  t.same(list(), ['r9', 'r8', 'r7', 'r6'])

  net.failMethod('getTransaction', null)
  net.resetStats()
  t.same(await scanner(net.rpc).scan('2026-01-01T00:00:10.000Z'), { pages: 1, listed: 6, fetched: 6, registrations: 6 })
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 6 }, 'nothing read twice')
  t.same(list(), [...names].reverse())
  t.match(repository.scanState(key), { fetchedAt: '2026-01-01T00:00:10.000Z', resume: null })
})
