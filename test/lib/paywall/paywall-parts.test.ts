import t from 'tap'
import { createRequestLimit } from '../../../lib/paywall/request-limit.js'
import { CATALOGUE } from '../../../lib/catalogue/catalogue.js'
import { paidServiceAt } from '../../../lib/paywall/resource-match.js'
import { PREPARED_COMPUTE_UNIT_LIMIT, preparedUnitPrice } from '../../../lib/x402/prepare-payment.js'
import { priorityFeeLamports } from '../../../lib/x402/transaction-rules.js'

t.test('a resource is for sale when it is a paid route of this origin', async t => {
  const base = 'https://merchant.example'
  t.equal(paidServiceAt(`${base}/api/fetch-price/SOL`, base, CATALOGUE), 'fetch-price')
  t.equal(paidServiceAt(`${base}/api/fetch-price/SOL?vs=EURC`, base, CATALOGUE), 'fetch-price')
  t.equal(paidServiceAt(`${base}/api/analyze-token/So11111111111111111111111111111111111111112`, base, CATALOGUE), 'analyze-token')
  for (const resource of [`${base}/api/fetch-price/`, `${base}/api/fetch-price/SOL/more`, `${base}/health/live`, 'https://other.example/api/fetch-price/SOL',
    'http://merchant.example/api/fetch-price/SOL', `${base}:8443/api/fetch-price/SOL`, 'https://user:pw@merchant.example/api/fetch-price/SOL',
    `${base}/api/fetch-price/SOL#x`, 'not a url', '']) {
    t.equal(paidServiceAt(resource, base, CATALOGUE), undefined, resource)
  }
})

t.test("the prepared priority fee never exceeds the merchant's cap", async t => {
  t.equal(preparedUnitPrice(10_000n), 1n, 'the smallest non-zero price when the cap allows it')
  t.equal(preparedUnitPrice(0n), 0n, 'a cap of 0: no priority fee')
  for (const cap of [0n, 1n, 2n, 10_000n, 1_000_000n]) {
    t.ok(priorityFeeLamports(PREPARED_COMPUTE_UNIT_LIMIT, preparedUnitPrice(cap)) <= cap, `cap ${cap}`)
  }
})

t.test('preparations are limited per client and window', async t => {
  let now = 0
  const limit = createRequestLimit({ max: 2, windowMs: 10_000, now: () => now })
  limit.take('a')
  limit.take('a')
  t.throws(() => limit.take('a'), { code: 'RATE_LIMITED', headers: { 'retry-after': '10' } })
  limit.take('b')
  now = 10_000
  t.doesNotThrow(() => limit.take('a'), 'a new window')
})
