import t from 'tap'
import { METRIC_CHANNELS, publishFeePayerSpend } from '../../../lib/metrics/events.js'
import { watchFeePayerBalance } from '../../../lib/x402/fee-payer.js'

t.test('the fee payer\'s balance is read again after it spent on a settlement, at most once per interval, and no more once stopped', async t => {
  let clock = 0
  let reads = 0
  const watch = watchFeePayerBalance({ read: async () => { reads++ }, minIntervalMs: 10_000, now: () => clock })
  t.teardown(watch.stop)
  t.ok(METRIC_CHANNELS.feePayerSpends.hasSubscribers, 'it listens to the spends the x402 method publishes')

  publishFeePayerSpend({ outcome: 'delivered', lamports: 10_001n })
  t.equal(reads, 1, 'the first spend: read at once')
  clock = 5_000
  publishFeePayerSpend({ outcome: 'failed_on_chain', lamports: 10_001n })
  t.equal(reads, 1, 'a burst of settlements costs one read')

  clock = 12_000
  await watch.check()
  t.equal(reads, 2, 'the periodic check reads')
  clock = 20_000
  publishFeePayerSpend({ outcome: 'delivered', lamports: 10_001n })
  t.equal(reads, 2, 'within the interval of the periodic read')
  clock = 22_001
  publishFeePayerSpend({ outcome: 'refused_at_send', lamports: 0n })
  t.equal(reads, 3)

  watch.stop()
  clock = 100_000
  publishFeePayerSpend({ outcome: 'delivered', lamports: 10_001n })
  t.equal(reads, 3, 'a closed app reads nothing')
})
