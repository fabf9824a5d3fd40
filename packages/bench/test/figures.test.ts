import { availableParallelism } from 'node:os'
import t from 'tap'
import { coresBusy, cpuPerRequest, judge, median, medianRatio, mergeRounds, mergeSamples, percentile, summarize, unexpectedResponses, type LoadFigures } from '../figures.js'
import { machineCpuSeconds } from '../processes.js'
import { memoryGrowthPercent } from '../report.js'

const round = (requests: number, seconds: number, p50: number, serverCpuSeconds: number): LoadFigures => ({
  requestsPerSecond: requests / seconds,
  latency: { p50, p99: p50 * 10, mean: p50 * 2 },
  requests,
  seconds,
  statusCodes: { 200: requests },
  serverCpuSeconds,
  clientCpuSeconds: 0
})

t.test('percentiles are nearest-rank over sorted values', async t => {
  const values = Array.from({ length: 100 }, (_, i) => i + 1)
  t.equal(percentile(values, 50), 50)
  t.equal(percentile(values, 99), 99)
  t.equal(percentile([7], 99), 7)
  t.ok(Number.isNaN(percentile([], 50)))
  t.same(summarize([3, 1, 2]), { p50: 2, p99: 3, mean: 2 })
})

t.test('rounds merge into requests per second over the total time', async t => {
  const merged = mergeRounds([round(1000, 1, 2, 0.05), round(3000, 1, 4, 0.15)])
  t.equal(merged.requestsPerSecond, 2000)
  t.equal(merged.latency.p50, 3, 'latency percentiles: the mean of the rounds')
  t.same(merged.statusCodes, { 200: 4000 })
  t.equal(cpuPerRequest(merged.serverCpuSeconds, merged.requests), 50, '0.2 s of CPU over 4,000 requests')
  t.equal(unexpectedResponses({ ...merged, statusCodes: { 200: 10, 404: 2, errors: 1 } }, 200), 3)
})

t.test('samples merge with percentiles over every latency', async t => {
  const merged = mergeSamples([
    { latencies: [1, 2, 3], seconds: 1, statusCodes: { 200: 3 }, serverCpuSeconds: 0.1, clientCpuSeconds: 0.01, machineCpuSeconds: 1.5 },
    { latencies: [4, 5], seconds: 1, statusCodes: { 200: 1, 402: 1 }, serverCpuSeconds: 0.2, clientCpuSeconds: 0.02, machineCpuSeconds: 1.75 }
  ])
  t.equal(merged.requests, 5)
  t.equal(merged.requestsPerSecond, 2.5)
  t.equal(merged.latency.p50, 3)
  t.same(merged.statusCodes, { 200: 4, 402: 1 })
  t.equal(Math.round(merged.serverCpuSeconds * 10), 3)
  t.equal(merged.machineCpuSeconds, 3.25, 'the machine\'s CPU adds up over the samples')
  t.equal(mergeRounds([merged, merged]).machineCpuSeconds, 6.5, 'and over rounds that all have it')
  t.equal(mergeRounds([merged, round(1000, 1, 2, 0.05)]).machineCpuSeconds, undefined, 'a round without it leaves it out')
  t.equal(coresBusy(merged), 1.625, 'cores busy: the machine\'s CPU over the measure\'s seconds')
  t.equal(coresBusy(round(1000, 1, 2, 0.05)), undefined)
})

t.test('the machine\'s CPU time grows with work on it, by no more than its cores allow', async t => {
  const before = machineCpuSeconds()
  const started = performance.now()
  while (performance.now() - started < 300) Math.sqrt(Math.random())
  const used = machineCpuSeconds() - before
  const elapsed = (performance.now() - started) / 1000
  t.ok(used >= 0.2, `a 300 ms busy loop shows (${used.toFixed(2)} s)`)
  t.ok(used <= availableParallelism() * elapsed + 0.05, `within the cores' time (${used.toFixed(2)} s in ${elapsed.toFixed(2)} s)`)
})

t.test('targets pass or miss, with the margin in their unit', async t => {
  t.match(judge({ name: 'ratio', measured: 85, limit: 80, kind: 'at-least', unit: '%' }), { pass: true, margin: 5 })
  t.match(judge({ name: 'ratio', measured: 50, limit: 80, kind: 'at-least', unit: '%' }), { pass: false, margin: -30 })
  t.match(judge({ name: 'gate', measured: 1, limit: 1, kind: 'at-most', unit: 'ms' }), { pass: true, margin: 0 })
  t.match(judge({ name: 'read', measured: 5, limit: 5, kind: 'below', unit: 'ms' }), { pass: false, margin: 0 })
  t.match(judge({ name: 'nothing measured', measured: Number.NaN, limit: 5, kind: 'below', unit: 'ms' }), { pass: false })
})

t.test('ratios between servers are the median of the per-round ratios', async t => {
  t.equal(median([3, 1, 2]), 2)
  t.equal(median([4, 1, 3, 2]), 2.5, 'an even count takes the mean of the middle two')
  t.ok(Number.isNaN(median([])))
  const rounds = [
    { target: round(900, 1, 1, 0), other: round(1000, 1, 1, 0) },
    { target: round(400, 1, 1, 0), other: round(1000, 1, 1, 0) },
    { target: round(1000, 1, 1, 0), other: round(1000, 1, 1, 0) }
  ]
  t.equal(medianRatio(rounds), 0.9, 'one disturbed round (0.4) does not drag the ratio down')
})

t.test('memory growth is judged on the highest sample, not on the last', async t => {
  const memory = { requests: 100_000, rssBeforeMb: 100, rssSamplesMb: [104, 112, 103, 101], rssAfterMb: 101, rssPeakMb: 112 }
  t.equal(memoryGrowthPercent(memory), 12)
  t.equal(memoryGrowthPercent({ ...memory, rssSamplesMb: [100, 100, 100, 100], rssAfterMb: 100, rssPeakMb: 100 }), 0)
})
