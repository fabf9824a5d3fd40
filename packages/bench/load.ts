// Load with autocannon: one run, or a target and its baseline loaded the same way in alternating rounds
// (so a noisy neighbour on a shared machine hits both alike).
import autocannon from 'autocannon'
import { BalancedPool, Pool } from 'undici'
import { medianRatio, mergeRounds, type LoadFigures } from './figures.js'
import { cpuSeconds, ownCpuSeconds, residentMegabytes } from './processes.js'

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

/** A keep-alive pool to one service, or spread evenly over several processes of it (as behind PM2's shared port), with their pids. */
export function poolOver (service: LoadTarget | readonly LoadTarget[], concurrency: number): { pool: Pool | BalancedPool, pids: number[] } {
  const services = [service].flat()
  const pool = services.length === 1
    ? new Pool(services[0].url, { connections: concurrency, pipelining: 1 })
    : new BalancedPool(services.map(target => target.url), { connections: Math.ceil(concurrency / services.length), pipelining: 1 })
  return { pool, pids: services.map(target => target.pid) }
}

/** Latencies as autocannon records them: whole milliseconds. */
export async function runLoad (target: LoadTarget, shape: Pick<LoadShape, 'connections' | 'duration' | 'pipelining'>): Promise<LoadFigures> {
  const serverCpu = cpuSeconds(target.pid)
  const clientCpu = ownCpuSeconds()
  const result = await autocannon({ url: target.url, connections: shape.connections, duration: shape.duration, pipelining: shape.pipelining })
  const serverCpuSeconds = cpuSeconds(target.pid) - serverCpu
  const clientCpuSeconds = ownCpuSeconds() - clientCpu
  // DefinitelyTyped marks both optional: autocannon 8 fills them for every status it saw.
  const statusCodes: Record<string, number> = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0]))
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

/** Another server loaded in the same rounds as the service: its merged figures and the median ratio. */
export interface Rival {
  figures: LoadFigures
  /** service requests/s over this server's, median over rounds */
  ratio: number
}

export interface Comparison {
  target: LoadFigures
  baseline: LoadFigures
  /** target requests/s over baseline requests/s, median over rounds */
  ratio: number
  /** Further servers loaded in the same rounds (the x402 peers), by name. */
  peers: Record<string, Rival>
  /** Servers loaded in the same rounds for reference only, never judged (bare Fastify sending our headers too). */
  references: Record<string, Rival>
  rounds: Array<{ target: LoadFigures, baseline: LoadFigures, peers: Record<string, LoadFigures> }>
}

/**
 * The service, the bare baseline and any peers loaded the same way in rounds; each round rotates
 * which server goes first, so none always runs on a warmer or quieter machine.
 */
export async function compareWithBaseline (service: LoadTarget, bare: LoadTarget, shape: LoadShape, peers: Record<string, LoadTarget> = {},
  references: Record<string, LoadTarget> = {}): Promise<Comparison> {
  const sides: Array<[string, LoadTarget]> = [['target', service], ['baseline', bare], ...Object.entries(peers), ...Object.entries(references)]
  const warm = { ...shape, duration: shape.warmup }
  for (const [, side] of sides) await runLoad(side, warm)
  const measured: Array<Record<string, LoadFigures>> = []
  for (let i = 0; i < shape.rounds; i++) {
    const round: Record<string, LoadFigures> = {}
    for (let k = 0; k < sides.length; k++) {
      const [name, side] = sides[(i + k) % sides.length]
      round[name] = await runLoad(side, shape)
    }
    measured.push(round)
  }
  const rounds = measured.map(({ target, baseline, ...others }) => ({ target, baseline, peers: others }))
  const merged = (name: string) => mergeRounds(measured.map(round => round[name]))
  const ratioTo = (name: string) => medianRatio(measured.map(round => ({ target: round.target, other: round[name] })))
  const rivals = (names: string[]) => Object.fromEntries(names.map(name => [name, { figures: merged(name), ratio: ratioTo(name) }]))
  return {
    target: merged('target'),
    baseline: merged('baseline'),
    ratio: ratioTo('baseline'),
    peers: rivals(Object.keys(peers)),
    references: rivals(Object.keys(references)),
    rounds
  }
}

export interface MemoryFigures {
  requests: number
  /** resident set size after the warm-up, in MB */
  rssBeforeMb: number
  /** after each quarter of `requests` more, in MB (a single end sample can land on a low point) */
  rssSamplesMb: number[]
  /** after the last one, in MB */
  rssAfterMb: number
  /** the highest sample, in MB: what the growth target is judged on */
  rssPeakMb: number
}

const MEMORY_SAMPLES = 4

/**
 * Resident memory of a server before and after a long run of requests, sampled after each
 * quarter: flat memory under sustained load means nothing accumulates per request and the heap
 * does not keep growing between collections. The warm-up grows the heap to its working size first.
 */
export async function measureMemory (target: LoadTarget, requests: number): Promise<MemoryFigures> {
  await autocannon({ url: target.url, connections: 10, amount: Math.ceil(requests / 10) })
  const rssBeforeMb = residentMegabytes(target.pid)
  const rssSamplesMb: number[] = []
  for (let i = 0; i < MEMORY_SAMPLES; i++) {
    await autocannon({ url: target.url, connections: 10, amount: Math.ceil(requests / MEMORY_SAMPLES) })
    rssSamplesMb.push(residentMegabytes(target.pid))
  }
  return { requests, rssBeforeMb, rssSamplesMb, rssAfterMb: rssSamplesMb[rssSamplesMb.length - 1], rssPeakMb: Math.max(...rssSamplesMb) }
}
