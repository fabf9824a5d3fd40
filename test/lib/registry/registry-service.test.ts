import { join } from 'node:path'
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit'
import t from 'tap'
import { registerAgent } from '../../../client/register.js'
import { openDatabase } from '../../../db/sqlite/open-database.js'
import { startLocalnet, type Localnet } from '@token-merchant/localnet'
import { AppError } from '../../../lib/errors/app-error.js'
import { createRegistryRepository } from '../../../db/sqlite/registry-repository.js'
import { createRegistryScanner } from '../../../lib/registry/registry-scanner.js'
import { createRegistryService } from '../../../lib/registry/registry-service.js'
import { createRpcBatchClient } from '../../../lib/solana/rpc-batch.js'
import { createRpcClient } from '../../../lib/solana/rpc-client.js'
import { testFolder } from '../../fixtures/test-folder.js'

const REFRESH_SECONDS = 30
const START = Date.parse('2026-01-01T00:00:00.000Z')

/** A service on the SQLite file at `path` reading the chain at `rpcUrl`, with a clock the test moves and a log it reads. */
function open (path: string, rpcUrl: string, registryAddress: string, clock: { now: number }) {
  const db = openDatabase(path)
  const repository = createRegistryRepository(db)
  const key = { network: 'localnet', registryAddress }
  const scanner = createRegistryScanner({
    rpc: createRpcClient(rpcUrl, 10_000),
    transactions: createRpcBatchClient({ url: rpcUrl, timeoutMs: 10_000 }),
    repository,
    key,
    callsPerRequest: 100,
    requestsInFlight: 4,
    maxPages: 100
  })
  const logged: Array<{ level: string, message: string }> = []
  const log = {
    debug: (_details: object, message: string) => { logged.push({ level: 'debug', message }) },
    info: (_details: object, message: string) => { logged.push({ level: 'info', message }) },
    warn: (_details: object, message: string) => { logged.push({ level: 'warn', message }) },
    error: (_details: object, message: string) => { logged.push({ level: 'error', message }) }
  }
  const service = createRegistryService({ repository, scanner, key, refreshSeconds: REFRESH_SECONDS, log, now: () => clock.now })
  return {
    service,
    logged,
    async close () {
      await service.close()
      db.close()
    }
  }
}

const iso = (ms: number) => new Date(ms).toISOString()

async function register (net: Localnet, signer: KeyPairSigner, registryAddress: string, name: string) {
  return await registerAgent({ rpc: net.rpc, signer, registryAddress, name, manifestUrl: `https://${name}.example/agent.json`, pollIntervalMs: 20 })
}

t.test('serving from the store, refreshing when stale, one read at a time, across restarts', async t => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const [alice, bob] = await Promise.all([net.createWallet(), net.createWallet()])
  const registryAddress = (await generateKeyPairSigner()).address
  await register(net, alice, registryAddress, 'alpha')
  await register(net, bob, registryAddress, 'beta')
  const path = join(testFolder(t), 'registry.db')
  const clock = { now: START }
  let instance = open(path, net.url, registryAddress, clock)
  t.teardown(() => instance.close())

  net.resetStats()
  const listings = await Promise.all(Array.from({ length: 20 }, () => instance.service.list()))
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 2 }, '20 readers, one chain read')
  t.ok(listings.every(listing => JSON.stringify(listing) === JSON.stringify(listings[0])), 'all readers see the same listing')
  t.match(listings[0], { network: 'localnet', registry_address: registryAddress, total: 2, fetched_at: iso(START) })
  t.same(listings[0].agents.map(agent => agent.name), ['beta', 'alpha'])

  t.same((await instance.service.list({ wallet: alice.address })).agents.map(agent => agent.name), ['alpha'], 'filter by wallet')
  t.same((await instance.service.list({ name: 'BETA' })).total, 1, 'filter by name')

  net.resetStats()
  await register(net, alice, registryAddress, 'gamma')
  clock.now = START + (REFRESH_SECONDS - 1) * 1000
  t.equal((await instance.service.list()).total, 2, 'still fresh: served from the store')
  t.same(net.stats(), { getLatestBlockhash: 1, simulateTransaction: 1, sendTransaction: 1, getBlockHeight: 1, getSignatureStatuses: 1 }, 'only the registration itself')

  net.resetStats()
  clock.now = START + REFRESH_SECONDS * 1000
  const refreshed = await instance.service.list()
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 1 }, 'stale: reads only what is new')
  t.same(refreshed.agents.map(agent => agent.name), ['gamma', 'beta', 'alpha'])
  t.equal(refreshed.fetched_at, iso(clock.now))

  await instance.close()
  instance = open(path, net.url, registryAddress, clock)
  net.resetStats()
  t.same(await instance.service.list(), refreshed, 'after a restart: the stored listing, no chain read')
  t.same(net.stats(), {})

  clock.now += REFRESH_SECONDS * 1000
  net.resetStats()
  t.equal((await instance.service.list()).total, 3)
  t.same(net.stats(), { getSignaturesForAddress: 1 }, 'a restarted service does not rescan history')
})

t.test('when the RPC fails during a refresh, the stored listing is served with its older fetched_at', async t => {
  const net = await startLocalnet()
  let running = true
  t.teardown(() => running ? net.stop() : undefined)
  const alice = await net.createWallet()
  const registryAddress = (await generateKeyPairSigner()).address
  await register(net, alice, registryAddress, 'alpha')
  const clock = { now: START }
  const instance = open(join(testFolder(t), 'registry.db'), net.url, registryAddress, clock)
  t.teardown(() => instance.close())
  const stored = await instance.service.list()

  await register(net, alice, registryAddress, 'beta')
  net.failMethod('getTransaction', { httpStatus: 503 })
  clock.now += REFRESH_SECONDS * 1000
  net.resetStats()
  t.same(await instance.service.list(), stored, 'the listing read before, fetched_at and all')
  t.same(net.stats(), { getSignaturesForAddress: 1, getTransaction: 1 }, 'the read got as far as the new transaction')
  t.match(instance.logged.at(-1), { level: 'warn', message: /serving the stored listing/ })

  net.failMethod('getTransaction', null)
  net.resetStats()
  clock.now += 1000
  t.same(await instance.service.list(), stored, 'right after a failure: no new attempt yet')
  t.same(net.stats(), {})

  clock.now += 5000
  const recovered = await instance.service.list()
  t.same(recovered.agents.map(agent => agent.name), ['beta', 'alpha'], 'the next attempt picks up the missed registration')
  t.equal(recovered.fetched_at, iso(clock.now))

  await net.stop()
  running = false
  clock.now += REFRESH_SECONDS * 1000
  t.same(await instance.service.list(), recovered, 'with the RPC gone altogether too')
})

t.test('with nothing stored and the RPC down, 503 RPC_UNAVAILABLE', async t => {
  const clock = { now: START }
  const registryAddress = (await generateKeyPairSigner()).address
  const instance = open(join(testFolder(t), 'registry.db'), 'http://127.0.0.1:9', registryAddress, clock)
  t.teardown(() => instance.close())
  for (const attempt of ['first read', 'within the retry delay']) {
    const error = await instance.service.list().catch((e: unknown) => e)
    t.type(error, AppError, attempt)
    t.match(error, { statusCode: 503, code: 'RPC_UNAVAILABLE' }, attempt)
  }
  t.equal(instance.logged.length, 1, 'one attempt logged')
})
