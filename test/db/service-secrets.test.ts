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
    // Many first calls racing at once: each name still gets one secret, both instances told it.
    const names = Array.from({ length: 20 }, (_, index) => `race-${index}`)
    const raced = await Promise.all(names.map(async name => await Promise.all([a.secrets.getOrKeep(name, `${name}-a`), b.secrets.getOrKeep(name, `${name}-b`)])))
    t.same(raced.filter(([fromA, fromB]) => fromA !== fromB), [], 'no two answers differ')
    t.same(raced.filter(([kept], index) => kept !== `${names[index]}-a` && kept !== `${names[index]}-b`), [], 'each kept one of the two made')
  })
}
