import t from 'tap'
import { createUnpaidCounter } from '../../db/unpaid-counter.js'

const DAY_ONE = Date.UTC(2026, 10, 24, 23, 59, 59)
const DAY_TWO = Date.UTC(2026, 10, 25, 0, 0, 0)

const sorted = <T extends { day: string, service: string, outcome: string }>(rows: T[]) =>
  [...rows].sort((a, b) => `${a.day}${a.service}${a.outcome}`.localeCompare(`${b.day}${b.service}${b.outcome}`))

t.test('unpaid requests are counted per UTC day, service and outcome, and taken once', async t => {
  const counter = createUnpaidCounter()
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_ONE)
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_ONE)
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_TWO)
  counter.count('analyze-token', 'PAYMENT_REQUIRED', DAY_TWO)
  counter.count('analyze-token', 'INVALID_PAYMENT_HEADER', DAY_TWO)
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_ONE)
  t.same(sorted(counter.take()), [
    { service: 'fetch-price', day: '2026-11-24', outcome: 'PAYMENT_REQUIRED', count: 3 },
    { service: 'analyze-token', day: '2026-11-25', outcome: 'INVALID_PAYMENT_HEADER', count: 1 },
    { service: 'analyze-token', day: '2026-11-25', outcome: 'PAYMENT_REQUIRED', count: 1 },
    { service: 'fetch-price', day: '2026-11-25', outcome: 'PAYMENT_REQUIRED', count: 1 }
  ])
  t.same(counter.take(), [], 'taken rows are gone')
})

t.test('rows that could not be written are restored and merged with what came meanwhile', async t => {
  const counter = createUnpaidCounter()
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_ONE)
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_ONE)
  const failed = counter.take()
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_ONE)
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_TWO)
  counter.restore(failed)
  t.same(sorted(counter.take()), [
    { service: 'fetch-price', day: '2026-11-24', outcome: 'PAYMENT_REQUIRED', count: 3 },
    { service: 'fetch-price', day: '2026-11-25', outcome: 'PAYMENT_REQUIRED', count: 1 }
  ])
})

t.test('a flush hands the rows to the writer; rows it fails to write are kept for the next flush', async t => {
  const counter = createUnpaidCounter()
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_ONE)
  await t.rejects(counter.flush(async () => { throw new Error('database gone') }), /database gone/)
  counter.count('fetch-price', 'PAYMENT_REQUIRED', DAY_ONE)
  const written: unknown[] = []
  await counter.flush(rows => { written.push(...rows) })
  t.same(written, [{ service: 'fetch-price', day: '2026-11-24', outcome: 'PAYMENT_REQUIRED', count: 2 }], 'the failed row merged with the new one')
  let calls = 0
  await counter.flush(() => { calls++ })
  t.equal(calls, 0, 'nothing counted, nothing written')
})
