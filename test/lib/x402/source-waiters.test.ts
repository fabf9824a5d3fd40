import { setImmediate as nextTurn } from 'node:timers/promises'
import t from 'tap'
import { createSourceWaiters } from '../../../lib/x402/source-waiters.js'

const HOUR_MS = 3_600_000

/** Whether `promise` has settled once pending callbacks ran. */
async function settled (promise: Promise<unknown>): Promise<boolean> {
  let done = false
  promise.then(() => { done = true }, () => { done = true })
  await nextTurn()
  return done
}

t.test('a release in this process wakes every settlement waiting for that source, and only those', async t => {
  const waiters = createSourceWaiters()
  const first = waiters.wait('source-a', HOUR_MS)
  const second = waiters.wait('source-a', HOUR_MS)
  const other = waiters.wait('source-b', 50)
  t.notOk(await settled(first), 'waiting while the source is held')
  waiters.released('source-a')
  t.ok(await settled(first), 'woken by the release, long before its poll')
  t.ok(await settled(second), 'every waiter of that source is woken')
  t.notOk(await settled(other), 'a waiter of another source is not')
  await other
  t.pass('without a release here, a waiter resumes at its poll (a release by another process is seen then)')
  waiters.released('source-a')
  t.pass('a release nobody waits for is a no-op')
})
