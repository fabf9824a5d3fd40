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
  })
}
