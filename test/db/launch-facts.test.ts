import t from 'tap'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, storeTarget } from '../fixtures/stores.js'

// Launch facts: the same contract on both engines, over two instances sharing one database.
const postgres = lazyPostgres(t, startTestPostgres)
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const [a, b] = [await target.open(), await target.open()]
    t.equal(await a.launchFacts.load('mainnet-beta', MINT), undefined, 'never kept')
    await a.launchFacts.save('mainnet-beta', MINT, '{"slot":"7"}', 1000)
    t.equal(await b.launchFacts.load('mainnet-beta', MINT), '{"slot":"7"}', 'kept on one instance, read on the other')
    await b.launchFacts.save('mainnet-beta', MINT, '{"slot":"8"}')
    t.equal(await a.launchFacts.load('mainnet-beta', MINT), '{"slot":"7"}', 'the first write wins')
    t.equal(await a.launchFacts.load('devnet', MINT), undefined, 'kept per cluster')
    t.same(await a.launchFacts.loadFunders('mainnet-beta', ['w1', 'w2']), new Map())
    await a.launchFacts.saveFunder('mainnet-beta', 'w1', 'f1', 's1')
    await b.launchFacts.saveFunder('mainnet-beta', 'w1', 'f2', 's2')
    await b.launchFacts.saveFunder('mainnet-beta', 'w3', 'f1', 's3')
    t.same(await b.launchFacts.loadFunders('mainnet-beta', ['w1', 'w2', 'w3']), new Map([['w1', { funder: 'f1', signature: 's1' }], ['w3', { funder: 'f1', signature: 's3' }]]), 'the first funder kept, per wallet')
    t.same(await b.launchFacts.loadFunders('devnet', ['w1']), new Map())
  })
}
