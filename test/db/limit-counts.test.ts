import t from 'tap'
import { createSharedCounts } from '../../lib/limits/shared-counts.js'
import { createProofFailureLimit } from '../../lib/payment/proof-failure-limit.js'
import { createRequestLimit } from '../../lib/paywall/request-limit.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, storeTarget } from '../fixtures/stores.js'

// Issue #55 item 6: the limits' counters hold across the instances sharing a store. Each instance
// judges from memory; `sync` writes its busy clients' figures and reads the others'. The window
// is turned by a clock, not waited for.
const postgres = lazyPostgres(t, startTestPostgres)
const WINDOW_MS = 60_000

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const [storeA, storeB] = [await target.open(), await target.open()]
    let clock = 1_000_000
    const now = () => clock
    const a = createSharedCounts({ log: storeA.limitCounts, instance: 'a', now })
    const b = createSharedCounts({ log: storeB.limitCounts, instance: 'b', now })
    const limitOn = (shared: typeof a) => createRequestLimit({ max: 30, windowMs: WINDOW_MS, now, shared, scope: 'prepare' })
    const [onA, onB] = [limitOn(a), limitOn(b)]

    for (let i = 0; i < 18; i++) onA.take('10.0.0.1')
    for (let i = 0; i < 2; i++) onA.take('10.0.0.2') // below a tenth of the limit: worth no row
    await a.sync()
    t.same(await storeA.limitCounts.others('b', clock, 10), [{ key: 'prepare:10.0.0.1', count: 18, expiresAt: 1_000_000 + WINDOW_MS }],
      'only the busy client is written, with the end of its window')

    await b.sync()
    for (let i = 0; i < 12; i++) onB.take('10.0.0.1')
    t.throws(() => onB.take('10.0.0.1'), { code: 'RATE_LIMITED' }, 'the other instance refuses the 31st request of the window: 18 there and 12 here')
    onB.take('10.0.0.2')
    t.pass('a light client is not held back by the other instance')

    await b.sync()
    await a.sync()
    t.throws(() => onA.take('10.0.0.1'), { code: 'RATE_LIMITED' }, 'and the first instance too, once it read them')

    const failuresA = createProofFailureLimit({ limit: 4, windowMs: WINDOW_MS, now, shared: a })
    const failuresB = createProofFailureLimit({ limit: 4, windowMs: WINDOW_MS, now, shared: b })
    for (let i = 0; i < 3; i++) failuresA.count('10.0.0.9')
    await a.sync()
    await b.sync()
    failuresB.check('10.0.0.9')()
    failuresB.count('10.0.0.9')
    t.throws(() => failuresB.check('10.0.0.9'), { code: 'RATE_LIMITED' }, 'failed proofs count across instances too')
    t.doesNotThrow(() => limitOn(b).take('10.0.0.9'), 'in their own scope: a request limit does not see them')

    clock += WINDOW_MS
    t.doesNotThrow(() => onB.take('10.0.0.1'), 'past the window: free again')
    await a.sync()
    t.same(await storeB.limitCounts.others('a', clock, 10), [], 'and the store forgot the ended windows')
  })
}

t.test('a sync whose write failed keeps the figures for the next one', async t => {
  let failing = true
  const written: string[] = []
  const counts = createSharedCounts({
    instance: 'a',
    log: {
      async publish (_instance, rows) { if (failing) throw new Error('store down'); written.push(...rows.map(row => `${row.key}=${row.count}`)) },
      async others () { return [] },
      async prune () {}
    }
  })
  counts.offer('requests:10.0.0.1', 30, Date.now() + WINDOW_MS)
  await t.rejects(counts.sync(), /store down/)
  failing = false
  await counts.sync()
  t.same(written, ['requests:10.0.0.1=30'], 'written once the store answers')
  await counts.sync()
  t.same(written, ['requests:10.0.0.1=30'], 'and not again')
})
