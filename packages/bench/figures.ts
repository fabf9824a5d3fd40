// Pure arithmetic of the bench: latency summaries, merging load rounds, ratios and target verdicts.

export interface LatencySummary {
  p50: number
  p99: number
  mean: number
}

/** Figures of one load run (or of several rounds merged). Latencies in ms. */
export interface LoadFigures {
  requestsPerSecond: number
  latency: LatencySummary
  requests: number
  seconds: number
  /** Responses per HTTP status, plus `errors` for connection errors and timeouts. */
  statusCodes: Record<string, number>
  /**
   * CPU time (user + system) the server process and this load-generating process spent during the
   * run. On a shared machine, CPU per request moves far less than requests/s and latency do.
   */
  serverCpuSeconds: number
  clientCpuSeconds: number
  /** CPU seconds of the whole machine (every process and the kernel, all cores) during the calls the bench timed itself. */
  machineCpuSeconds?: number
}

/** Raw timings of a batch of calls made by the bench itself (not by autocannon). */
export interface CallSample {
  latencies: number[]
  seconds: number
  statusCodes: Record<string, number>
  serverCpuSeconds: number
  clientCpuSeconds: number
  machineCpuSeconds: number
}

/** Batches merged: percentiles over every latency, requests per second over the summed time. */
export function mergeSamples (samples: readonly CallSample[]): LoadFigures {
  const latencies = samples.flatMap(sample => sample.latencies)
  const seconds = samples.reduce((sum, sample) => sum + sample.seconds, 0)
  const statusCodes: Record<string, number> = {}
  for (const sample of samples) {
    for (const [status, count] of Object.entries(sample.statusCodes)) statusCodes[status] = (statusCodes[status] ?? 0) + count
  }
  return {
    requestsPerSecond: latencies.length / seconds,
    latency: summarize(latencies),
    requests: latencies.length,
    seconds,
    statusCodes,
    serverCpuSeconds: samples.reduce((sum, sample) => sum + sample.serverCpuSeconds, 0),
    clientCpuSeconds: samples.reduce((sum, sample) => sum + sample.clientCpuSeconds, 0),
    machineCpuSeconds: samples.reduce((sum, sample) => sum + sample.machineCpuSeconds, 0)
  }
}

/** Of the machine's cores, how many were busy on average during a measure; undefined for figures without the machine's CPU. */
export function coresBusy (figures: LoadFigures): number | undefined {
  return figures.machineCpuSeconds === undefined ? undefined : figures.machineCpuSeconds / figures.seconds
}

/** Microseconds of CPU per request. */
export function cpuPerRequest (cpuSeconds: number, requests: number): number {
  return (cpuSeconds * 1e6) / requests
}

/** Nearest-rank percentile of values sorted ascending. */
export function percentile (sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

export function summarize (latenciesMs: readonly number[]): LatencySummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b)
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean }
}

/**
 * Rounds of the same load merged: requests per second over the total time, latency percentiles
 * as the mean of each round's (autocannon hands out percentiles, not its samples).
 */
export function mergeRounds (rounds: readonly LoadFigures[]): LoadFigures {
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0)
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0)
  const mean = (pick: (round: LoadFigures) => number) => rounds.reduce((sum, round) => sum + pick(round), 0) / rounds.length
  const statusCodes: Record<string, number> = {}
  for (const round of rounds) {
    for (const [status, count] of Object.entries(round.statusCodes)) statusCodes[status] = (statusCodes[status] ?? 0) + count
  }
  return {
    requestsPerSecond: requests / seconds,
    latency: { p50: mean(r => r.latency.p50), p99: mean(r => r.latency.p99), mean: mean(r => r.latency.mean) },
    requests,
    seconds,
    statusCodes,
    serverCpuSeconds: rounds.reduce((sum, round) => sum + round.serverCpuSeconds, 0),
    clientCpuSeconds: rounds.reduce((sum, round) => sum + round.clientCpuSeconds, 0),
    ...(rounds.every(round => round.machineCpuSeconds !== undefined) ? { machineCpuSeconds: rounds.reduce((sum, round) => sum + (round.machineCpuSeconds ?? 0), 0) } : {})
  }
}

/** The median of values (the mean of the middle two for an even count). */
export function median (values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/**
 * The ratio of two servers measured in the same rounds: the median over rounds of each round's
 * requests/s ratio, so one round disturbed by a neighbour moves it less than a ratio of sums.
 */
export function medianRatio (rounds: ReadonlyArray<{ target: LoadFigures, other: LoadFigures }>): number {
  return median(rounds.map(round => round.target.requestsPerSecond / round.other.requestsPerSecond))
}

/** Responses whose status (or outcome) is not `expected`, connection errors included. */
export function unexpectedResponses (figures: LoadFigures, expected: number | string): number {
  return Object.entries(figures.statusCodes).reduce((sum, [status, count]) => status === String(expected) ? sum : sum + count, 0)
}

export interface Target {
  name: string
  /** What is measured, in the unit of `limit`. */
  measured: number
  limit: number
  /** 'at-least': measured >= limit passes; 'at-most': measured <= limit; 'below': measured < limit. */
  kind: 'at-least' | 'at-most' | 'below'
  unit: string
}

export interface Verdict extends Target {
  pass: boolean
  /** How far from the limit, in the unit: positive is headroom, negative is the miss. */
  margin: number
}

export function judge (target: Target): Verdict {
  const { measured, limit, kind } = target
  const pass = kind === 'at-least' ? measured >= limit : kind === 'at-most' ? measured <= limit : measured < limit
  const margin = kind === 'at-least' ? measured - limit : limit - measured
  return { ...target, pass: Number.isFinite(measured) && pass, margin }
}

// The logging bench's figures live here, beside the others, so report.ts reads them without importing logging.ts (which imports report.ts).
export interface LoggingRun {
  destination: 'stdout' | 'LOG_FILE'
  level: 'info' | 'warn'
  figures: LoadFigures
  /** CPU µs per request of the PM2 daemon (God), which reads the worker's stdout in cluster mode. */
  daemonCpuPerRequestUs: number
  /** Bytes of log written per request (the out file or LOG_FILE). */
  logBytesPerRequest: number
}

export interface LoggingFigures {
  path: string
  runs: LoggingRun[]
}
