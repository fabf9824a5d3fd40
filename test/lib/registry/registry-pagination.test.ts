import { subscribe } from 'node:diagnostics_channel'
import { join } from 'node:path'
import { generateKeyPairSigner } from '@solana/kit'
import t from 'tap'
import { registrationInstructions } from '../../../client/register.js'
import { openDatabase } from '../../../db/sqlite/open-database.js'
import { startLocalnet } from '@token-merchant/localnet'
import { rpcBatch, rpcCall } from '@token-merchant/localnet/testing/json-rpc'
import { buildSignedTransaction } from '@token-merchant/localnet/tx-builder'
import { buildRegistrationMemo } from '../../../lib/registry/registration-memo.js'
import { createRegistryRepository } from '../../../db/sqlite/registry-repository.js'
import { createRegistryScanner } from '../../../lib/registry/registry-scanner.js'
import { createRpcBatchClient } from '../../../lib/solana/rpc-batch.js'
import { testFolder } from '../../fixtures/test-folder.js'

const TOTAL = 2500
// A blockhash lives 150 slots and the local chain makes one slot per transaction.
const SEND_BATCH = 100

// HTTP requests this process sends (kit and the batch client both use fetch); the chain's stats()
// counts the JSON-RPC calls inside them.
let httpRequests = 0
subscribe('undici:request:create', () => { httpRequests++ })

t.test('2,500 registrations: a cold read over three pages, then an incremental one', async t => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const wallets = await Promise.all(Array.from({ length: 10 }, () => net.createWallet()))
  const registryAddress = (await generateKeyPairSigner()).address

  // Signed here and sent in JSON-RPC batches (they land in order): waiting for each would take minutes.
  const sendRegistrations = async (from: number, to: number) => {
    const signatures: string[] = []
    for (let start = from; start < to; start += SEND_BATCH) {
      const { result: { value: lifetime } } = await rpcCall(net.url, 'getLatestBlockhash', [])
      const wires: string[] = []
      for (let i = start; i < Math.min(start + SEND_BATCH, to); i++) {
        const wallet = wallets[i % wallets.length]
        const memo = buildRegistrationMemo({ name: `agent-${i}`, manifestUrl: `https://agent-${i}.example/agent.json` })
        const bytes = await buildSignedTransaction(registrationInstructions(wallet, registryAddress, memo), { feePayer: wallet, lifetime })
        wires.push(Buffer.from(bytes).toString('base64'))
      }
      const answers = await rpcBatch(net.url, wires.map(wire => ({ method: 'sendTransaction', params: [wire, { encoding: 'base64', skipPreflight: true }] })))
      for (const answer of answers) {
        if (typeof answer.result !== 'string') throw new Error(`send failed: ${JSON.stringify(answer.error)}`)
        signatures.push(answer.result)
      }
    }
    return signatures
  }
  const sent = await sendRegistrations(0, TOTAL)

  const db = openDatabase(join(testFolder(t), 'registry.db'))
  t.teardown(() => db.close())
  const repository = createRegistryRepository(db)
  const key = { network: 'localnet', registryAddress }
  const transactions = createRpcBatchClient({ url: net.url, timeoutMs: 30_000 })
  const scanner = createRegistryScanner({ rpc: net.rpc, transactions, repository, key, callsPerRequest: 100, requestsInFlight: 4, maxPages: 100 })

  net.resetStats()
  httpRequests = 0
  const started = performance.now()
  const report = await scanner.scan(new Date().toISOString())
  const coldMs = Math.round(performance.now() - started)
  const coldCalls = net.stats()
  t.comment(`cold read of ${TOTAL} registrations: ${coldMs} ms, ${httpRequests} HTTP requests, RPC calls ${JSON.stringify(coldCalls)}`)
  t.same(report, { pages: 3, listed: TOTAL, requests: TOTAL / 100, fetched: TOTAL, registrations: TOTAL })
  t.same(coldCalls, { getSignaturesForAddress: 3, getTransaction: TOTAL }, 'pages of 1000, one getTransaction call per registration')
  t.equal(httpRequests, 3 + TOTAL / 100, 'the getTransaction calls travel in batches of 100')

  const agents = await repository.listAgents(key)
  t.equal(agents.length, TOTAL)
  t.same(agents.map(agent => agent.signature), [...sent].reverse(), 'every registration once, newest first')
  t.match(agents[0], { name: `agent-${TOTAL - 1}`, wallet: wallets[(TOTAL - 1) % wallets.length].address })

  const newer = await sendRegistrations(TOTAL, TOTAL + 3)
  net.resetStats()
  httpRequests = 0
  t.same(await scanner.scan(new Date().toISOString()), { pages: 1, listed: 3, requests: 1, fetched: 3, registrations: 3 })
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 3 }, 'only the new transactions are fetched')
  t.equal(httpRequests, 2, 'in one listing request and one batch')
  t.same((await repository.listAgents(key)).slice(0, 4).map(agent => agent.signature), [...newer.reverse(), sent[TOTAL - 1]])

  t.test('a read walks at most REGISTRY_MAX_PAGES pages; the next one resumes where it stopped', async t => {
    const paged = createRegistryRepository(db)
    const pagedKey = { network: 'localnet-paged', registryAddress }
    const budgeted = createRegistryScanner({ rpc: net.rpc, transactions, repository: paged, key: pagedKey, callsPerRequest: 100, requestsInFlight: 4, maxPages: 1 })
    const reads = []
    for (let i = 0; i < 3; i++) reads.push(await budgeted.scan(new Date().toISOString()))
    t.same(reads.map(read => [read.pages, read.listed]), [[1, 1000], [1, 1000], [1, TOTAL + 3 - 2000]], 'one page per read')
    t.equal((await paged.listAgents(pagedKey)).length, TOTAL + 3, 'nothing skipped or repeated across reads')
  })

  t.test('a listing of the wrong shape stops the read instead of looping', async t => {
    const garbled = { getSignaturesForAddress: () => ({ send: async () => ({ value: 'not a list' }) }) } as unknown as typeof net.rpc
    const broken = createRegistryScanner({ rpc: garbled, transactions, repository, key: { ...key, network: 'garbled' }, callsPerRequest: 100, requestsInFlight: 1, maxPages: 100 })
    await t.rejects(broken.scan(new Date().toISOString()), { name: 'IncompleteChainReadError', message: /something other than a list/ })
  })
})
