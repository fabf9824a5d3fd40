import t from 'tap'
import { createPayerFailureBudget } from '../../lib/x402/payer-failures.js'
import { until } from '../fixtures/cluster-merchant.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { ENGINES, lazyPostgres, storeTarget } from '../fixtures/stores.js'

// Issue #55 item 10: the fee payer's budget of failed settlements per wallet is kept in the store,
// so a restart (a new budget on the same store) and a second instance both know a wallet's
// failures; the window is turned by a clock, not waited for.
const postgres = lazyPostgres(t, startTestPostgres)
const WINDOW_MS = 60_000

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const target = await storeTarget(t, engine, postgres)
    const [a, b] = [await target.open(), await target.open()]
    let clock = 1_000_000
    const now = () => clock
    const budget = (store: typeof a) => createPayerFailureBudget({ limit: 2, windowMs: WINDOW_MS, log: store.payerFailures, now })

    const first = budget(a)
    first.record('wallet-1')
    first.record('wallet-1')
    first.record('wallet-2')
    t.ok(first.blockedFor('wallet-1') !== undefined, 'blocked where the failures happened, at once')
    await until(async () => (await a.payerFailures.since(0, 10)).length === 3)

    const restarted = budget(a)
    t.equal(restarted.blockedFor('wallet-1'), undefined, 'a new budget knows nothing before it reads the store')
    await restarted.sync()
    t.equal(restarted.blockedFor('wallet-1'), 60, 'after a restart: still blocked, until the oldest failure leaves the window')
    t.equal(restarted.blockedFor('wallet-2'), undefined, 'one failure: within the budget')

    const other = budget(b)
    await other.sync()
    t.ok(other.blockedFor('wallet-1') !== undefined, 'another instance on the same store: blocked too')
    other.record('wallet-2')
    t.ok(other.blockedFor('wallet-2') !== undefined, 'its own failure and the stored one make two')

    clock += WINDOW_MS + 1
    await until(async () => (await a.payerFailures.since(0, 10)).length === 4)
    await restarted.sync()
    t.equal(restarted.blockedFor('wallet-1'), undefined, 'past the window: free again')
    t.same(await a.payerFailures.since(0, 10), [], 'and the store forgot them')
  })
}
