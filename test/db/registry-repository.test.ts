import t from 'tap'
import type { FoundRegistration } from '../../db/contracts/registry-repository.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, storeTarget } from '../fixtures/stores.js'

// The registry cache on both engines, through the store interface the service uses.
const postgres = lazyPostgres(t, startTestPostgres)

const key = { network: 'localnet', registryAddress: 'DuENzGwryL5Am1JhNSXNEsP26QkGnSLjg5NuA9G4MAgU' }
const WALLET_A = '7crim3zBdwd3wsR65Tf3Y7q8wYWHqZwEU1ATi98XQ7e7'
const WALLET_B = '8KEegQYdcAypM4STCx5kkESabXEaHjoY9rGmeZqDxQdN'

function found (signature: string, slot: number, run: number, position: number, extra: Partial<FoundRegistration> = {}): FoundRegistration {
  return { signature, name: `agent-${signature}`, manifestUrl: `https://${signature}.example/agent.json`, wallet: WALLET_A, blockTime: 1_700_000_000 + slot, slot, run, position, ...extra }
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    t.test('a fresh registry has no cursor and no agents', async t => {
      const repository = (await (await storeTarget(t, engine, postgres)).open()).registry
      t.same(await repository.scanState(key), { newestSignature: null, fetchedAt: null, run: 0, resume: null })
      t.same(await repository.listAgents(key), [])
    })

    t.test('partial progress keeps the old cursor; completion moves it and clears the resume point', async t => {
      const target = await storeTarget(t, engine, postgres)
      const store = await target.open()
      const repository = store.registry
      await repository.saveProgress(key, [found('s9', 9, 1, 0), found('s7', 7, 1, 2)], { kind: 'partial', run: 1, resume: { top: 's9', before: 's7', position: 3 } })
      t.same(await repository.scanState(key), { newestSignature: null, fetchedAt: null, run: 1, resume: { top: 's9', before: 's7', position: 3 } })

      await repository.saveProgress(key, [found('s2', 2, 1, 3)], { kind: 'complete', run: 1, newestSignature: 's9', fetchedAt: '2026-01-01T00:00:00.000Z' })
      t.same(await repository.scanState(key), { newestSignature: 's9', fetchedAt: '2026-01-01T00:00:00.000Z', run: 1, resume: null })
      await store.close()

      const reopened = (await target.open()).registry
      t.same((await reopened.listAgents(key)).map(a => a.signature), ['s9', 's7', 's2'], 'survives a reopen, newest first')
      t.same((await reopened.scanState(key)).newestSignature, 's9')
    })

    t.test('newest first by slot, then by listing order; duplicates are ignored; filters', async t => {
      const repository = (await (await storeTarget(t, engine, postgres)).open()).registry
      const complete = (run: number, newest: string) => ({ kind: 'complete' as const, run, newestSignature: newest, fetchedAt: '2026-01-01T00:00:00.000Z' })
      await repository.saveProgress(key, [found('b', 5, 1, 0), found('a', 5, 1, 1, { wallet: WALLET_B, name: 'Price-Bot' }), found('old', 3, 1, 2, { blockTime: null })], complete(1, 'b'))
      await repository.saveProgress(key, [found('c', 5, 2, 0), found('b', 5, 2, 1, { name: 'changed' })], complete(2, 'c'))
      await repository.saveProgress({ ...key, network: 'devnet' }, [found('elsewhere', 9, 1, 0)], complete(1, 'elsewhere'))
      await repository.saveProgress(key, [found('u', 1, 2, 2, { name: 'ÉCLAIR' })], complete(2, 'c'))

      const agents = await repository.listAgents(key)
      t.same(agents.map(a => a.signature), ['c', 'b', 'a', 'old', 'u'])
      t.same(agents[1], { name: 'agent-b', manifest_url: 'https://b.example/agent.json', wallet: WALLET_A, signature: 'b', timestamp: 1_700_000_005 }, 'the first write of a signature stays')
      t.equal(agents[3].timestamp, null)
      t.same((await repository.listAgents(key, { wallet: WALLET_B })).map(a => a.signature), ['a'])
      t.same((await repository.listAgents(key, { name: 'price-bot' })).map(a => a.signature), ['a'], 'name ignores ASCII case')
      t.same(await repository.listAgents(key, { name: 'price' }), [], 'whole names only')
      t.same(await repository.listAgents(key, { name: 'éclair' }), [], 'only ASCII case is ignored')
      t.same((await repository.listAgents(key, { name: 'ÉCLAIR' })).map(a => a.signature), ['u'])
      t.same(await repository.listAgents(key, { wallet: WALLET_A, name: 'Price-Bot' }), [])
      t.same((await repository.listAgents({ ...key, network: 'devnet' })).map(a => a.signature), ['elsewhere'], 'registries are kept apart')
    })
  })
}
