// Load with autocannon: one run, or a target and its baseline loaded the same way in alternating rounds
// (so a noisy neighbour on a shared machine hits both alike).
import autocannon from 'autocannon'
import { mergeRounds, type LoadFigures } from './figures.js'
import { cpuSeconds, ownCpuSeconds } from './processes.js'

export interface LoadShape {
  connections: number
  /** seconds per measured round */
  duration: number
  pipelining: number
  rounds: number
  /** seconds of unmeasured load on each side first (JIT, connection set-up, caches) */
  warmup: number
}

/** A process under load: where it listens and its pid (for its CPU time). */
export interface LoadTarget {
  url: string
  pid: number
}

/** Latencies as autocannon records them: whole milliseconds. */
export async function runLoad (target: LoadTarget, shape: Pick<LoadShape, 'connections' | 'duration' | 'pipelining'>): Promise<LoadFigures> {
  const serverCpu = cpuSeconds(target.pid)
  const clientCpu = ownCpuSeconds()
  const result = await autocannon({ url: target.url, connections: shape.connections, duration: shape.duration, pipelining: shape.pipelining })
  const serverCpuSeconds = cpuSeconds(target.pid) - serverCpu
  const clientCpuSeconds = ownCpuSeconds() - clientCpu
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]))
  if (result.errors > 0) statusCodes.errors = result.errors
  return {
    requestsPerSecond: result.requests.total / result.duration,
    latency: { p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.mean },
    requests: result.requests.total,
    seconds: result.duration,
    statusCodes,
    serverCpuSeconds,
    clientCpuSeconds
  }
}

export interface Comparison {
  target: LoadFigures
  baseline: LoadFigures
  /** target requests/s over baseline requests/s */
  ratio: number
  rounds: Array<{ target: LoadFigures, baseline: LoadFigures }>
}

export async function compareWithBaseline (service: LoadTarget, bare: LoadTarget, shape: LoadShape): Promise<Comparison> {
  const warm = { ...shape, duration: shape.warmup }
  await runLoad(service, warm)
  await runLoad(bare, warm)
  const rounds: Comparison['rounds'] = []
  for (let i = 0; i < shape.rounds; i++) {
    // Alternate which side goes first, so neither always runs on a warmer or quieter machine.
    const targetFirst = i % 2 === 0
    const a = await runLoad(targetFirst ? service : bare, shape)
    const b = await runLoad(targetFirst ? bare : service, shape)
    rounds.push(targetFirst ? { target: a, baseline: b } : { target: b, baseline: a })
  }
  const target = mergeRounds(rounds.map(round => round.target))
  const baseline = mergeRounds(rounds.map(round => round.baseline))
  return { target, baseline, ratio: target.requestsPerSecond / baseline.requestsPerSecond, rounds }
}
