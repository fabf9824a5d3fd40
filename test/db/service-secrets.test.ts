import t from 'tap'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, storeTarget } from '../fixtures/stores.js'

// Service secrets: the same contract on both engines, over two instances sharing one database.
const postgres = lazyPostgres(t, startTestPostgres)

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const [a, b] = [await target.open(), await target.open()]
    const [first, second] = await Promise.all([a.secrets.getOrKeep('mpp', 'made-by-a'), b.secrets.getOrKeep('mpp', 'made-by-b')])
    t.equal(first, second, 'two instances starting at once agree on one secret')
    t.ok(first === 'made-by-a' || first === 'made-by-b', 'the secret is one of those made')
    t.equal(await a.secrets.getOrKeep('mpp', 'made-later'), first, 'the first write wins')
    t.equal(await b.secrets.getOrKeep('other', 'another'), 'another', 'kept per name')
  })
}
