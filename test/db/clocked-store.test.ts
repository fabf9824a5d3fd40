// A store opened with a clock reads its claims' leases on it: a test turns the clock to let a
// lease run out instead of waiting the lease in real time.
import { join } from 'node:path'
import t from 'tap'
import type { ClaimRequest } from '../../db/contracts/payment-claims.js'
import { openStore } from '../../db/open-store.js'
import { testFolder } from '../fixtures/test-folder.js'

const request = (signature: string, claimId: string): ClaimRequest =>
  ({ signature, claimId, flow: 'proof', service: 'fetch-price', payer: 'payer', amount: 50_000n, resource: '/api/fetch-price/SOL', leaseMs: 5000 })
const log = { info: () => {}, warn: () => {} }

t.test('a lease runs out when the clock is turned past it, not before', async t => {
  let clock = 1_000_000
  const store = await openStore({ DATABASE_PATH: join(testFolder(t), 'clocked.db'), DATABASE_POOL_SIZE: 1, SQLITE_SYNCHRONOUS: 'NORMAL' }, log, { now: () => clock })
  t.teardown(async () => { await store.close() })
  t.same(await store.claims.claim(request('sig', 'first')), { claimed: true, sent: false })
  clock += 4999
  t.match(await store.claims.claim(request('sig', 'second')), { claimed: false, status: 'pending' }, 'held while its lease runs')
  clock += 1
  t.match(await store.claims.claim(request('sig', 'second')), { claimed: true }, 'taken over once the clock reaches its end')
  t.notOk(await store.claims.renew('sig', 'first', 5000), 'the first holder lost it')
  t.ok(await store.claims.redeem({ signature: 'sig', claimId: 'second' }), 'the new holder redeems it')
  t.equal((await store.claims.status('sig'))?.status, 'redeemed')
})

t.test('a call that names its own time keeps it', async t => {
  const store = await openStore({ DATABASE_PATH: join(testFolder(t), 'named.db'), DATABASE_POOL_SIZE: 1, SQLITE_SYNCHRONOUS: 'NORMAL' }, log, { now: () => 0 })
  t.teardown(async () => { await store.close() })
  const now = Date.now()
  t.same(await store.claims.claim({ ...request('sig', 'first'), now }), { claimed: true, sent: false })
  t.match(await store.claims.claim({ ...request('sig', 'second'), now: now + 5000 }), { claimed: true }, 'its lease ran out on the times named')
})
