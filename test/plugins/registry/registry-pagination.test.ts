import { join } from 'node:path'
import { generateKeyPairSigner } from '@solana/kit'
import t from 'tap'
import { registrationInstructions } from '../../../client/register.js'
import { openDatabase } from '../../../db/open-database.js'
import { startLocalnet } from '../../../localnet/index.js'
import { rpcBatch, rpcCall } from '../../../localnet/testing/json-rpc.js'
import { buildSignedTransaction } from '../../../localnet/tx-builder.js'
import { buildRegistrationMemo } from '../../../plugins/app/registry/registration-memo.js'
import { createRegistryRepository } from '../../../plugins/app/registry/registry-repository.js'
import { createRegistryScanner } from '../../../plugins/app/registry/registry-scanner.js'

const TOTAL = 2500
// A blockhash lives 150 slots and the local chain makes one slot per transaction.
const SEND_BATCH = 100

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

  const db = openDatabase(join(t.testdir(), 'registry.db'))
  t.teardown(() => db.close())
  const repository = createRegistryRepository(db)
  const key = { network: 'localnet', registryAddress }
  const scanner = createRegistryScanner({ rpc: net.rpc, repository, key, concurrency: 8, batchSize: 100 })

  net.resetStats()
  const started = performance.now()
  const report = await scanner.scan(new Date().toISOString())
  const coldMs = Math.round(performance.now() - started)
  const coldCalls = net.stats()
  t.comment(`cold read of ${TOTAL} registrations: ${coldMs} ms, RPC calls ${JSON.stringify(coldCalls)}`)
  t.same(report, { pages: 3, listed: TOTAL, fetched: TOTAL, registrations: TOTAL })
  t.same(coldCalls, { getSignaturesForAddress: 3, getTransaction: TOTAL }, 'pages of 1000, one getTransaction per registration')

  const agents = repository.listAgents(key)
  t.equal(agents.length, TOTAL)
  t.same(agents.map(agent => agent.signature), [...sent].reverse(), 'every registration once, newest first')
  t.match(agents[0], { name: `agent-${TOTAL - 1}`, wallet: wallets[(TOTAL - 1) % wallets.length].address })

  const newer = await sendRegistrations(TOTAL, TOTAL + 3)
  net.resetStats()
  t.same(await scanner.scan(new Date().toISOString()), { pages: 1, listed: 3, fetched: 3, registrations: 3 })
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 3 }, 'only the new transactions are fetched')
  t.same(repository.listAgents(key).slice(0, 4).map(agent => agent.signature), [...newer.reverse(), sent[TOTAL - 1]])
})
