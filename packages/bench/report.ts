// The bench's result (written as JSON as it is) and its printed form: tables and one verdict per target.
import { coresBusy, cpuPerRequest, judge, unexpectedResponses, type LoadFigures, type LoggingFigures, type Target, type Verdict } from './figures.js'
import type { Comparison, LoadShape, MemoryFigures } from './load.js'
import type { McpPaidFigures } from './mcp-paid-calls.js'
import type { PaidCallSet } from './paid-calls.js'
import type { X402CallSet } from './x402-calls.js'
import type { PeerPaidSet } from './x402-peer-calls.js'
import type { RegistryFigures } from './registry.js'
import type { StoreFigures } from './store.js'
import type { PostgresStoreFigures } from './store-postgres.js'

export interface Machine {
  cpus: number
  cpuModel: string
  node: string
  platform: string
  memoryGb: number
  /** 1-minute load average when the bench started and ended (other work on the machine shows here). */
  loadAverage: { start: number, end: number }
}

export interface BenchResult {
  generatedAt: string
  command: string
  machine: Machine
  load: LoadShape & { tool: string }
  logLevel: string
  manifest: Comparison & { bodyBytes: number }
  manifestInfoLogging: Comparison
  challengeInfoLogging: Comparison
  challenge: Comparison & { path: string, bodyBytes: number }
  memory: MemoryFigures
  paid: {
    path: string
    freePath: string
    proofsPrepared: number
    prepareSeconds: number
    /** Pay-then-prove (proof headers), one set per number in flight (1 first), each beside its chain-only floor. */
    proof: PaidCallSet[]
    /** The standard x402 flow's paid call (the service verifies, co-signs, sends, confirms), likewise. */
    x402: X402CallSet[]
    /** The x402 paid call beside @x402/express + @x402/core's in-process facilitator (SQLite run only). */
    peer?: PeerPaidSet[]
    /** Upstream price requests during the measured calls (the price is cached). */
    priceApiCalls: number
  }
  /** The MCP paid call beside the HTTP x402 one (packages/bench/mcp-paid-calls.ts). */
  mcp: McpPaidFigures
  store: { oneProcess: StoreFigures, twoProcesses: StoreFigures, synchronous: string }
  /** The store on PostgreSQL (DATABASE_URL): claim+redeem pairs, and the paid calls of the service on it. */
  storePostgres: PostgresStoreFigures & { paid: BenchResult['paid'] }
  registry: RegistryFigures
  /** The service under PM2 with logs on stdout and in LOG_FILE, at info and warn. */
  logging: LoggingFigures
  /** Service log lines at warn or above during the warn-level runs. */
  serviceWarnings: string[]
  /** Runs that got answers they should not have: their figures measure something else. */
  problems: string[]
  targets: Verdict[]
}

type Measured = Omit<BenchResult, 'targets' | 'problems'>

/** The reference run.ts loads beside every comparison: bare Fastify sending the service's own headers. */
export const SAME_HEADERS = 'bare Fastify, same headers'

/** Runs that got answers they should not have (their figures measure something else), and short listings. */
export function problemsOf (result: Measured): string[] {
  const { manifest, manifestInfoLogging, challenge, challengeInfoLogging, paid, registry } = result
  const expectations: Array<[string, LoadFigures, number | string]> = [
    ['manifest', manifest.target, 200], ['manifest baseline', manifest.baseline, 200],
    ['manifest at info', manifestInfoLogging.target, 200], ['manifest baseline (info run)', manifestInfoLogging.baseline, 200],
    ['402 challenge', challenge.target, 402], ['402 challenge baseline', challenge.baseline, 402],
    ['402 challenge at info', challengeInfoLogging.target, 402], ['402 challenge baseline (info run)', challengeInfoLogging.baseline, 402],
    ...Object.entries(manifest.peers).map(([name, peer]): [string, LoadFigures, number] => [`manifest, @x402/${name}`, peer.figures, 200]),
    ...Object.entries(challenge.peers).map(([name, peer]): [string, LoadFigures, number] => [`402 challenge, @x402/${name}`, peer.figures, 402]),
    ...Object.entries(manifest.references).map(([name, reference]): [string, LoadFigures, number] => [`manifest, ${name}`, reference.figures, 200]),
    ...Object.entries(challenge.references).map(([name, reference]): [string, LoadFigures, number] => [`402 challenge, ${name}`, reference.figures, 402]),
    ...[['', paid] as const, [' on PostgreSQL', result.storePostgres.paid] as const].flatMap(([store, sets]): Array<[string, LoadFigures, number | string]> => [
      ...sets.proof.flatMap((set): Array<[string, LoadFigures, number | string]> => [
        [`paid calls${store}, ${set.concurrency} in flight`, set.paid, 200],
        [`getTransaction floor${store}, ${set.concurrency} in flight`, set.getTransaction, 'found'],
        [`free route${store}, ${set.concurrency} in flight`, set.freeRoute, 200]
      ]),
      ...sets.x402.flatMap((set): Array<[string, LoadFigures, number | string]> => [
        [`x402 paid calls${store}, ${set.concurrency} in flight`, set.x402, 200],
        [`x402 chain-only floor${store}, ${set.concurrency} in flight`, set.rpcAlone, 'landed']
      ]),
      ...(sets.peer ?? []).flatMap((set): Array<[string, LoadFigures, number | string]> => [
        [`x402 paid calls beside the peer${store}, ${set.concurrency} in flight`, set.service, 200],
        [`@x402/express + facilitator${store}, ${set.concurrency} in flight`, set.peer, 200]
      ])
    ]),
    ['warm /registry', registry.warm.all, 200], ['warm /registry?name=', registry.warm.byName, 200],
    ...result.logging.runs.map((run): [string, LoadFigures, number] => [`logging: ${run.destination} at ${run.level}`, run.figures, 200]),
    ['HTTP x402 paid call (MCP run)', result.mcp.httpPaid, 200], ['MCP paid tool call', result.mcp.mcpPaid, 'ok'],
    ['HTTP manifest (MCP run)', result.mcp.httpFree, 200], ['MCP get_manifest', result.mcp.mcpFree, 'ok'],
    ['x402 chain-only floor (MCP run)', result.mcp.chainFloor, 'landed'], ['bare SDK MCP tool call', result.mcp.bareMcp, 'ok']
  ]
  const problems = expectations.flatMap(([name, figures, expected]) => {
    const unexpected = unexpectedResponses(figures, expected)
    return unexpected === 0 ? [] : [`${name}: ${unexpected} of ${figures.requests} answers were not ${expected} (${JSON.stringify(figures.statusCodes)})`]
  })
  for (const scan of registry.cold) {
    if (scan.agentsListed !== scan.registrations) problems.push(`cold read of ${scan.registrations}: /registry listed ${scan.agentsListed}`)
  }
  return problems
}

/** Ours over bare Fastify answering the same bytes with the same headers (issue 43: the ratio measures code, not header size). */
function sameHeadersRatio (comparison: Comparison): number {
  return comparison.references[SAME_HEADERS]?.ratio ?? Number.NaN
}

/** Ahead of every x402 peer: at least as many requests per second as each. */
function peerTargets (path: string, comparison: Comparison): Target[] {
  return Object.entries(comparison.peers).map(([name, peer]) =>
    ({ name: `${path} req/s vs @x402/${name}`, measured: peer.ratio * 100, limit: 100, kind: 'at-least', unit: '%' }))
}

/** Growth of the resident size over the run, judged on the highest of its samples, in %. */
export function memoryGrowthPercent (memory: MemoryFigures): number {
  return (100 * (memory.rssPeakMb - memory.rssBeforeMb)) / memory.rssBeforeMb
}

/** The set measured with `concurrency` in flight (the bench always measures 1, 10 and 32 for x402, 1 and 32 for proofs). */
function at<T extends { concurrency: number }> (sets: readonly T[], concurrency: number): T {
  const set = sets.find(candidate => candidate.concurrency === concurrency)
  if (set === undefined) throw new Error(`no run with ${concurrency} in flight`)
  return set
}

/** Ahead of the x402 paid path's peer (issue 43): 2.5× its calls/s at 10 and 32 in flight, a lower p50 at each number in flight. */
function peerPaidTargets (sets: readonly PeerPaidSet[]): Target[] {
  return [
    ...sets.filter(set => set.concurrency > 1).map((set): Target => ({
      name: `x402 paid calls/s vs @x402/express + facilitator, ${set.concurrency} in flight`,
      measured: (100 * set.service.requestsPerSecond) / set.peer.requestsPerSecond,
      limit: 250,
      kind: 'at-least',
      unit: '%'
    })),
    ...sets.map((set): Target => ({
      name: `x402 paid call p50 minus @x402/express + facilitator's p50, ${set.concurrency} in flight`,
      measured: set.service.latency.p50 - set.peer.latency.p50,
      limit: 0,
      kind: 'below',
      unit: 'ms'
    }))
  ]
}

/** The paid path against its chain-only floor, measured in the same run (issues 34 and 43's goals). */
function paidTargets (result: Measured): Target[] {
  const { proof, x402 } = result.paid
  const floorRatio = (ours: LoadFigures, floor: LoadFigures) => (100 * ours.requestsPerSecond) / floor.requestsPerSecond
  return [
    {
      name: 'x402 paid call p50 over the chain-only floor, 1 in flight',
      measured: at(x402, 1).x402.latency.p50 - at(x402, 1).rpcAlone.latency.p50,
      limit: 2,
      kind: 'at-most',
      unit: 'ms'
    },
    ...[10, 32].map((concurrency): Target => ({
      name: `x402 paid calls/s vs the chain-only floor, ${concurrency} in flight`,
      measured: floorRatio(at(x402, concurrency).x402, at(x402, concurrency).rpcAlone),
      limit: 80,
      kind: 'at-least',
      unit: '%'
    })),
    { name: 'service CPU per x402 paid call, 10 in flight', measured: serverCpu(at(x402, 10).x402) / 1000, limit: 2, kind: 'at-most', unit: 'ms' },
    ...peerPaidTargets(result.paid.peer ?? []),
    {
      name: 'pay-then-prove paid call p50 over the chain-only floor (getTransaction), 1 in flight',
      measured: at(proof, 1).paid.latency.p50 - at(proof, 1).getTransaction.latency.p50,
      limit: 1,
      kind: 'at-most',
      unit: 'ms'
    },
    { name: 'pay-then-prove calls/s vs the chain-only floor, 32 in flight', measured: floorRatio(at(proof, 32).paid, at(proof, 32).getTransaction), limit: 85, kind: 'at-least', unit: '%' },
    { name: 'service CPU per pay-then-prove call, 32 in flight', measured: serverCpu(at(proof, 32).paid) / 1000, limit: 0.6, kind: 'at-most', unit: 'ms' },
    { name: 'MCP paid call p50 vs the HTTP x402 paid call p50', measured: (100 * result.mcp.mcpPaid.latency.p50) / result.mcp.httpPaid.latency.p50, limit: 115, kind: 'at-most', unit: '%' },
    {
      name: 'x402 paid calls/s at 32 in flight, store on PostgreSQL vs SQLite',
      measured: floorRatio(at(result.storePostgres.paid.x402, 32).x402, at(x402, 32).x402),
      limit: 80,
      kind: 'at-least',
      unit: '%'
    }
  ]
}

export function targetsOf (result: Measured): Verdict[] {
  const targets: Target[] = [
    { name: 'manifest req/s vs bare Fastify sending the same bytes and headers', measured: sameHeadersRatio(result.manifest) * 100, limit: 90, kind: 'at-least', unit: '%' },
    ...peerTargets('manifest', result.manifest),
    { name: '402 challenge req/s vs bare Fastify sending the same bytes and headers', measured: sameHeadersRatio(result.challenge) * 100, limit: 80, kind: 'at-least', unit: '%' },
    ...peerTargets('402 challenge', result.challenge),
    {
      name: `resident memory growth over ${result.memory.requests.toLocaleString('en-US')} challenges (highest sample)`,
      measured: memoryGrowthPercent(result.memory),
      limit: 10,
      kind: 'at-most',
      unit: '%'
    },
    ...paidTargets(result),
    { name: 'store claim+redeem pairs/s, one process', measured: result.store.oneProcess.pairsPerSecond, limit: 10_000, kind: 'at-least', unit: '/s' },
    {
      name: `store on PostgreSQL claim+redeem pairs/s, one process (pool ${result.storePostgres.poolSize}, ${result.storePostgres.concurrency} in flight)`,
      measured: result.storePostgres.oneProcess.pairsPerSecond,
      limit: 5000,
      kind: 'at-least',
      unit: '/s'
    },
    {
      name: `warm /registry p50 with ${result.registry.warm.registrations} registrations`,
      measured: result.registry.warm.all.latency.p50,
      limit: 5,
      kind: 'below',
      unit: 'ms'
    }
  ]
  return targets.map(judge)
}

const integer = (value: number) => Math.round(value).toLocaleString('en-US')
const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1)
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`

function table (header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map(row => row[i].length)))
  const line = (cells: string[]) => `| ${cells.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join(' | ')} |`
  return [line(header), `|${widths.map((width, i) => i === 0 ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`).join('|')}|`, ...rows.map(line)].join('\n')
}

function statuses (figures: { statusCodes: Record<string, number> }): string {
  return Object.entries(figures.statusCodes).map(([status, count]) => `${status}×${count}`).join(' ')
}

const serverCpu = (figures: LoadFigures) => cpuPerRequest(figures.serverCpuSeconds, figures.requests)
const clientCpu = (figures: LoadFigures) => cpuPerRequest(figures.clientCpuSeconds, figures.requests)
/** Share of one core the load generator used: near 100% means it, not the server, set the pace. */
const clientBusy = (figures: LoadFigures) => `${Math.round((100 * figures.clientCpuSeconds) / figures.seconds)}%`

function comparisonRow (name: string, comparison: Comparison): string[] {
  const { target, baseline } = comparison
  return [
    name,
    integer(target.requestsPerSecond), ms(target.latency.p50), ms(target.latency.p99), integer(serverCpu(target)),
    integer(baseline.requestsPerSecond), ms(baseline.latency.p50), ms(baseline.latency.p99), integer(serverCpu(baseline)),
    percent(comparison.ratio), percent(serverCpu(baseline) / serverCpu(target))
  ]
}

function callRow (name: string, figures: LoadFigures): string[] {
  return [
    name, integer(figures.requestsPerSecond), ms(figures.latency.p50), ms(figures.latency.p99), ms(figures.latency.mean), integer(figures.requests),
    integer(serverCpu(figures)), integer(clientCpu(figures))
  ]
}

const PAID_HEADER = ['run', 'req/s', 'p50 ms', 'p99 ms', 'floor req/s', 'floor p50', 'floor p99', 'p50 over floor', 'req/s vs floor', 'service CPU µs/call', 'cores busy (floor)']

/** '–' for a result written before the bench read the machine's CPU. */
const busy = (figures: LoadFigures) => coresBusy(figures)?.toFixed(2) ?? '–'

function paidRow (name: string, ours: LoadFigures, floor: LoadFigures): string[] {
  return [
    name, integer(ours.requestsPerSecond), ms(ours.latency.p50), ms(ours.latency.p99),
    integer(floor.requestsPerSecond), ms(floor.latency.p50), ms(floor.latency.p99),
    `+${ms(ours.latency.p50 - floor.latency.p50)} ms`, `${(ours.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}×`, integer(serverCpu(ours)),
    `${busy(ours)} (${busy(floor)})`
  ]
}

function rpcPerCall (set: PaidCallSet): string {
  const calls = set.paid.requests
  return Object.entries(set.rpcByMethod).map(([method, count]) => `${method} ${(count / calls).toFixed(2)}`).join(', ') || 'none'
}

export function formatReport (result: BenchResult): string {
  const { machine, load, paid, store, registry } = result
  const out: string[] = []
  out.push(`Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGb} GB, Node ${machine.node}, ${machine.platform}; ` +
    `load average ${machine.loadAverage.start.toFixed(2)} at start, ${machine.loadAverage.end.toFixed(2)} at end`)
  out.push(`Load: ${load.tool}, ${load.connections} connections, pipelining ${load.pipelining}, ${load.rounds} rounds of ${load.duration} s per side ` +
    `(alternating with the baseline, after ${load.warmup} s of warm-up each). Service LOG_LEVEL=${result.logLevel} unless stated; ` +
    'baseline: bare Fastify 5, no logger, identical bytes, own process.')
  out.push('')
  const comparisons: Array<[string, Comparison]> = [
    [`GET /.well-known/agent.json (${result.manifest.bodyBytes} B)`, result.manifest],
    ['  same, service LOG_LEVEL=info', result.manifestInfoLogging],
    [`402 challenge (${result.challenge.bodyBytes} B)`, result.challenge],
    ['  same, service LOG_LEVEL=info', result.challengeInfoLogging]
  ]
  out.push(table(
    ['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'base req/s', 'base p50', 'base p99', 'base CPU µs/req', 'req/s ratio', 'CPU ratio'],
    comparisons.map(([name, comparison]) => comparisonRow(name, comparison))))
  const peerNames = Object.keys(result.challenge.peers)
  const referenceNames = Object.keys(result.challenge.references)
  if (peerNames.length > 0) {
    out.push(table(
      ['endpoint', 'ours req/s', 'bare Fastify', ...peerNames.map(name => `@x402/${name}`), 'ours / bare', ...peerNames.map(name => `ours / ${name}`),
        ...referenceNames.flatMap(name => [name, `ours / ${name}`])],
      [['manifest', result.manifest] as const, ['402 challenge', result.challenge] as const].map(([name, comparison]) => [
        name, integer(comparison.target.requestsPerSecond), integer(comparison.baseline.requestsPerSecond),
        ...peerNames.map(peer => integer(comparison.peers[peer].figures.requestsPerSecond)),
        `${comparison.ratio.toFixed(2)}×`, ...peerNames.map(peer => `${comparison.peers[peer].ratio.toFixed(2)}×`),
        ...referenceNames.flatMap(reference => [integer(comparison.references[reference]?.figures.requestsPerSecond ?? 0), `${(comparison.references[reference]?.ratio ?? 0).toFixed(2)}×`])
      ])))
    out.push(`At LOG_LEVEL=info (one line per request, to a file), ours / bare: manifest ${result.manifestInfoLogging.ratio.toFixed(2)}×, ` +
      `402 challenge ${result.challengeInfoLogging.ratio.toFixed(2)}×; the targets are judged at LOG_LEVEL=${result.logLevel}.`)
    out.push('Bare Fastify answers the identical bytes (same body, same status); the peers are the official x402 middleware ' +
      '(2.27, stub facilitator, no network) guarding the same route at the same price and serving the same manifest. ' +
      'For reference, not judged: bare Fastify sending our headers too (one constant set), what the same bytes on the wire cost the framework alone. ' +
      'Ratios: the median over rounds of each round\'s requests/s ratio; each round rotates which server goes first.')
  }
  out.push(`Memory: service resident size ${result.memory.rssBeforeMb.toFixed(1)} MB after warm-up, then ` +
    `${result.memory.rssSamplesMb.map(mb => mb.toFixed(1)).join(', ')} MB after each quarter of ${integer(result.memory.requests)} more 402 challenges ` +
    `(growth ${memoryGrowthPercent(result.memory).toFixed(1)}% at the highest).`)
  out.push(`402 challenge: GET ${result.challenge.path} without proof headers. CPU µs/req: user+system time of the server process per request; ` +
    'CPU ratio = baseline CPU/req over service CPU/req, the req/s ratio a server-bound run would show. autocannon latencies are whole milliseconds.')
  for (const [name, comparison] of comparisons) {
    out.push(`  ${name.trim()}: statuses ${statuses(comparison.target)} (baseline ${statuses(comparison.baseline)}); ` +
      `autocannon busy ${clientBusy(comparison.target)} of a core (baseline ${clientBusy(comparison.baseline)}); ` +
      `req/s per round ${comparison.rounds.map(round => `${integer(round.target.requestsPerSecond)}/${integer(round.baseline.requestsPerSecond)}`).join(', ')}`)
  }
  out.push('')
  out.push(`Paid calls beside their chain-only floor: GET ${paid.path}, each call with a payment of its own. The floor is a bare @solana/kit client ` +
    '(kit\'s RPC API over a keep-alive undici pool, kit\'s JSON codec) making exactly the RPC calls of one payment against the same chain, ' +
    'same number in flight, alternating with the paid calls in blocks: pay-then-prove, one getTransaction; x402, simulateTransaction, ' +
    `co-signing, sendTransaction (preflight at processed) and getSignatureStatuses until confirmed. ${integer(paid.proofsPrepared)} proofs prepared in ` +
    `${paid.prepareSeconds.toFixed(1)} s; x402 payloads signed by the bench per block of 100, untimed.`)
  const floorRows = (sets: BenchResult['paid']) => [
    ...sets.proof.map(set => paidRow(`pay-then-prove, ${set.concurrency} in flight`, set.paid, set.getTransaction)),
    ...sets.x402.map(set => paidRow(`x402 (HTTP v2), ${set.concurrency} in flight`, set.x402, set.rpcAlone))
  ]
  out.push(table(PAID_HEADER, floorRows(paid)))
  out.push('Service CPU: user+system time of the service process (all its threads) per call; the floor\'s server CPU is the chain\'s. ' +
    `Cores busy: the machine's CPU time (every process and the kernel) over the calls' time, of ${machine.cpus} cores.`)
  out.push(`Free route ${paid.freePath} through the same client, p50: ${paid.proof.map(set => `${ms(set.freeRoute.latency.p50)} ms (${set.concurrency} in flight)`).join(', ')}. ` +
    `Time inside the service per call (audit log), p50: proof ${paid.proof.map(set => `${ms(set.serviceElapsed.p50)} ms (${set.concurrency})`).join(', ')}; ` +
    `x402 ${paid.x402.map(set => `${ms(set.serviceElapsed?.p50 ?? Number.NaN)} ms (${set.concurrency})`).join(', ')}.`)
  const x402Rpc = (set: X402CallSet) => Object.entries(set.rpcByMethod).map(([method, count]) => `${method} ${(count / set.x402.requests).toFixed(2)}`).join(', ') || 'none'
  out.push(`RPC requests per call: proof ${rpcPerCall(paid.proof[0])}; x402 ${x402Rpc(paid.x402[0])}. Price API requests during the calls: ${paid.priceApiCalls}.`)
  if (paid.peer !== undefined) {
    out.push('')
    out.push('The x402 paid call beside its peer: @x402/express with @x402/core\'s in-process facilitator (@x402/svm\'s exact scheme), the same fee payer, ' +
      'chain, route and price; halves alternating (ours, peer, ours, peer), each beside the chain-only floor:')
    out.push(table(
      ['in flight', 'ours req/s', 'peer req/s', 'ours / peer', 'ours p50 ms', 'peer p50 ms', 'ours CPU µs/call', 'peer CPU µs/call'],
      paid.peer.map(set => [
        String(set.concurrency), integer(set.service.requestsPerSecond), integer(set.peer.requestsPerSecond),
        `${(set.service.requestsPerSecond / set.peer.requestsPerSecond).toFixed(2)}×`, ms(set.service.latency.p50), ms(set.peer.latency.p50),
        integer(serverCpu(set.service)), integer(serverCpu(set.peer))
      ])))
  }
  out.push('')
  const { mcp } = result
  out.push(`MCP beside HTTP, both paid with x402 v2 and settled before the answer (${mcp.calls} calls each, 1 in flight, alternating in blocks of ${mcp.blockSize}; ` +
    `payloads built beforehand by the official x402 client in ${mcp.payloadSeconds.toFixed(1)} s, not timed):`)
  out.push(table(
    ['run', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'calls', 'server CPU µs/call', 'client CPU µs/call'],
    [
      callRow(`GET ${mcp.path} with PAYMENT-SIGNATURE`, mcp.httpPaid),
      callRow(`tools/call ${mcp.tool} with _meta["x402/payment"]`, mcp.mcpPaid),
      callRow('GET /.well-known/agent.json', mcp.httpFree),
      callRow('tools/call get_manifest', mcp.mcpFree),
      callRow('chain-only x402 floor', mcp.chainFloor),
      callRow('bare SDK server, tools/call of a constant', mcp.bareMcp)
    ]))
  out.push(`MCP floor at p50: the chain-only x402 floor ${ms(mcp.chainFloor.latency.p50)} ms + the SDK's bare tool call ${ms(mcp.bareMcp.latency.p50)} ms = ` +
    `${ms(mcp.chainFloor.latency.p50 + mcp.bareMcp.latency.p50)} ms; the MCP paid call ${ms(mcp.mcpPaid.latency.p50)} ms, ` +
    `${(mcp.mcpPaid.latency.p50 / mcp.httpPaid.latency.p50).toFixed(2)}× the HTTP one.`)
  out.push(`MCP over HTTP at p50: paid ${ms(mcp.mcpPaid.latency.p50 - mcp.httpPaid.latency.p50)} ms, free ${ms(mcp.mcpFree.latency.p50 - mcp.httpFree.latency.p50)} ms ` +
    '(the JSON-RPC envelope, the SDK\'s per-request transport, schema checks). Statuses: ' +
    `${statuses(mcp.httpPaid)}; ${statuses(mcp.mcpPaid)}`)
  out.push('')
  out.push(`Replay store (claim + redeem per signature, synchronous=${store.synchronous}, WAL):`)
  out.push(table(
    ['processes', 'pairs/s total', 'pairs/s each', 'pairs'],
    [store.oneProcess, store.twoProcesses].map(s => [String(s.processes), integer(s.pairsPerSecond), s.perProcess.map(integer).join(' + '), integer(s.pairs)])))
  out.push('')
  const pgStore = result.storePostgres
  out.push(`Store on PostgreSQL (${pgStore.server} on this machine, fsync and synchronous_commit on; pool ${pgStore.poolSize}, ` +
    `${pgStore.concurrency} claim+redeem pairs in flight per process):`)
  out.push(table(
    ['client', 'processes', 'pairs/s total', 'pairs/s each', 'pairs'],
    [['naive: INSERT ... ON CONFLICT + UPDATE per proof', pgStore.naive] as const, ['the store', pgStore.oneProcess] as const, ['the store', pgStore.twoProcesses] as const]
      .map(([name, s]) => [name, String(s.processes), integer(s.pairsPerSecond), s.perProcess.map(integer).join(' + '), integer(s.pairs)])))
  out.push(`Paid calls with the store on PostgreSQL (same chain, same floor, ${integer(pgStore.paid.proofsPrepared)} proofs):`)
  out.push(table(PAID_HEADER, floorRows(pgStore.paid)))
  out.push('')
  out.push(`Registry (setup: ${Object.entries(registry.setupSeconds).map(([n, s]) => `${integer(Number(n))} registrations sent in ${s.toFixed(1)} s`).join(', ')}):`)
  out.push(table(
    ['cold read', 'time ms', 'RPC calls', 'by method', 'listed', 'body'],
    registry.cold.map(c => [
      `${integer(c.registrations)} registrations`, integer(c.ms), integer(c.rpcRequests),
      Object.entries(c.rpcByMethod).map(([m, n]) => `${m} ${n}`).join(', '), integer(c.agentsListed), `${(c.responseBytes / 1e6).toFixed(2)} MB`
    ])))
  out.push(table(
    ['warm read (one at a time)', 'req/s', 'p50 ms', 'p99 ms'],
    [
      [`GET /registry (${integer(registry.warm.registrations)} agents, ${(registry.warm.responseBytes / 1e6).toFixed(2)} MB)`,
        integer(registry.warm.all.requestsPerSecond), ms(registry.warm.all.latency.p50), ms(registry.warm.all.latency.p99)],
      ['GET /registry?name=agent-7', integer(registry.warm.byName.requestsPerSecond), ms(registry.warm.byName.latency.p50), ms(registry.warm.byName.latency.p99)]
    ]))
  out.push('RPC calls: each call of a JSON-RPC batch counts. Rebuilding the listing once the cached text is stale, timed in the bench ' +
    `process on the service's database (${integer(registry.listingParts.rows)} rows): SQL query p50 ${ms(registry.listingParts.sql.p50)} ms, ` +
    `JSON.stringify p50 ${ms(registry.listingParts.stringify.p50)} ms.`)
  out.push('')
  out.push(loggingTable(result.logging))
  for (const problem of result.problems) out.push(`PROBLEM: ${problem}`)
  if (result.serviceWarnings.length > 0) {
    out.push('')
    out.push(`The service logged ${result.serviceWarnings.length} line(s) at warn or above, first: ${result.serviceWarnings[0].slice(0, 300)}`)
  }
  out.push('')
  out.push('Targets:')
  for (const verdict of result.targets) {
    const value = verdict.unit === '/s' ? integer(verdict.measured) : verdict.measured.toFixed(2)
    const limit = verdict.unit === '/s' ? integer(verdict.limit) : String(verdict.limit)
    const relation = verdict.kind === 'at-least' ? '>=' : verdict.kind === 'at-most' ? '<=' : '<'
    const margin = verdict.unit === '/s' ? integer(Math.abs(verdict.margin)) : Math.abs(verdict.margin).toFixed(2)
    out.push(`  ${verdict.pass ? 'PASS' : 'MISS'}  ${verdict.name}: ${value} ${verdict.unit} (target ${relation} ${limit} ${verdict.unit}; ` +
      `${verdict.pass ? 'headroom' : 'short by'} ${margin} ${verdict.unit})`)
  }
  return out.join('\n')
}

/** Logs on stdout (through PM2) against LOG_FILE, at info and warn. */
export function loggingTable (logging: LoggingFigures): string {
  const rows = logging.runs.map(run => [
    run.destination, run.level, integer(run.figures.requestsPerSecond), ms(run.figures.latency.p50), ms(run.figures.latency.p99),
    integer(serverCpu(run.figures)), integer(run.daemonCpuPerRequestUs), integer(run.logBytesPerRequest)
  ])
  return [
    `Logging under PM2 (cluster mode, 1 worker, GET ${logging.path}):`,
    table(['logs', 'LOG_LEVEL', 'req/s', 'p50 ms', 'p99 ms', 'worker CPU µs/req', 'PM2 daemon CPU µs/req', 'log bytes/req'], rows),
    'stdout: pino writes through process.stdout, which PM2 wraps in the worker: each line is written to its out file and sent to the daemon over IPC. ' +
      'LOG_FILE: pino writes the file itself, asynchronously.'
  ].join('\n')
}
