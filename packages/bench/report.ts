// The bench's result (written as JSON as it is) and its printed form: tables and one verdict per target.
import { cpuPerRequest, judge, unexpectedResponses, type LoadFigures, type LoggingFigures, type Target, type Verdict } from './figures.js'
import type { Comparison, LoadShape, MemoryFigures } from './load.js'
import type { McpPaidFigures } from './mcp-paid-calls.js'
import type { PaidCallSet } from './paid-calls.js'
import type { X402CallSet } from './x402-calls.js'
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
    sequential: PaidCallSet
    concurrent: PaidCallSet
    /** The standard x402 flow's paid call (the service verifies, co-signs, sends, confirms). */
    x402: { sequential: X402CallSet, concurrent: X402CallSet }
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
    ...[paid.sequential, paid.concurrent].flatMap((set): Array<[string, LoadFigures, number | string]> => [
      [`paid calls, ${set.concurrency} in flight`, set.paid, 200],
      [`getTransaction alone, ${set.concurrency} in flight`, set.getTransaction, 'found'],
      [`free route, ${set.concurrency} in flight`, set.freeRoute, 200]
    ]),
    ...[paid.x402.sequential, paid.x402.concurrent].flatMap((set): Array<[string, LoadFigures, number | string]> => [
      [`x402 paid calls, ${set.concurrency} in flight`, set.x402, 200],
      [`x402 RPC calls alone, ${set.concurrency} in flight`, set.rpcAlone, 'landed']
    ]),
    ['warm /registry', registry.warm.all, 200], ['warm /registry?name=', registry.warm.byName, 200],
    ...[result.storePostgres.paid.sequential, result.storePostgres.paid.concurrent].map((set): [string, LoadFigures, number] =>
      [`paid calls on PostgreSQL, ${set.concurrency} in flight`, set.paid, 200]),
    ...result.logging.runs.map((run): [string, LoadFigures, number] => [`logging: ${run.destination} at ${run.level}`, run.figures, 200]),
    ['HTTP x402 paid call (MCP run)', result.mcp.httpPaid, 200], ['MCP paid tool call', result.mcp.mcpPaid, 'ok'],
    ['HTTP manifest (MCP run)', result.mcp.httpFree, 200], ['MCP get_manifest', result.mcp.mcpFree, 'ok']
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

/** Ahead of every x402 peer: at least as many requests per second as each. */
function peerTargets (path: string, comparison: Comparison): Target[] {
  return Object.entries(comparison.peers).map(([name, peer]) =>
    ({ name: `${path} req/s vs @x402/${name}`, measured: peer.ratio * 100, limit: 100, kind: 'at-least', unit: '%' }))
}

/** Growth of the resident size over the run, judged on the highest of its samples, in %. */
export function memoryGrowthPercent (memory: MemoryFigures): number {
  return (100 * (memory.rssPeakMb - memory.rssBeforeMb)) / memory.rssBeforeMb
}

export function targetsOf (result: Measured): Verdict[] {
  const sequential = result.paid.sequential
  const targets: Target[] = [
    { name: 'manifest req/s vs bare Fastify', measured: result.manifest.ratio * 100, limit: 80, kind: 'at-least', unit: '%' },
    ...peerTargets('manifest', result.manifest),
    { name: '402 challenge req/s vs bare Fastify', measured: result.challenge.ratio * 100, limit: 70, kind: 'at-least', unit: '%' },
    ...peerTargets('402 challenge', result.challenge),
    {
      name: `resident memory growth over ${result.memory.requests.toLocaleString('en-US')} challenges (highest sample)`,
      measured: memoryGrowthPercent(result.memory),
      limit: 10,
      kind: 'at-most',
      unit: '%'
    },
    {
      name: 'gate p50 over its getTransaction p50',
      measured: sequential.paid.latency.p50 - sequential.getTransaction.latency.p50,
      limit: 1,
      kind: 'at-most',
      unit: 'ms'
    },
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
  out.push(`Paid calls: GET ${paid.path} with a fresh, landed transferChecked per request (${integer(paid.proofsPrepared)} proofs prepared in ` +
    `${paid.prepareSeconds.toFixed(1)} s); getTransaction alone = the service's RPC client, same params, same signatures, same concurrency, ` +
    'alternating with the paid calls in blocks.')
  out.push(table(
    ['run', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'calls', 'server CPU µs/call', 'client CPU µs/call'],
    [
      callRow('paid call, 1 in flight', paid.sequential.paid),
      callRow('getTransaction alone, 1 in flight', paid.sequential.getTransaction),
      callRow(`paid call, ${paid.concurrent.concurrency} in flight`, paid.concurrent.paid),
      callRow(`getTransaction alone, ${paid.concurrent.concurrency} in flight`, paid.concurrent.getTransaction),
      callRow(`free ${paid.freePath}, 1 in flight`, paid.sequential.freeRoute),
      callRow(`free ${paid.freePath}, ${paid.concurrent.concurrency} in flight`, paid.concurrent.freeRoute)
    ]))
  out.push('Server CPU: the service for paid and free calls, the chain for getTransaction alone. Client CPU of getTransaction alone: ' +
    'the service\'s RPC client (same code) in the bench process, i.e. what one getTransaction costs the service\'s own CPU. ' +
    'The free route goes through the same client and the same Fastify stack: the HTTP part of a call, without gate or chain.')
  const gate = (set: PaidCallSet) => ms(set.paid.latency.p50 - set.getTransaction.latency.p50)
  const gateOnly = (set: PaidCallSet) => ms(set.paid.latency.p50 - set.getTransaction.latency.p50 - set.freeRoute.latency.p50)
  const ownCpu = (set: PaidCallSet) => integer(serverCpu(set.paid) - clientCpu(set.getTransaction) - serverCpu(set.freeRoute))
  out.push(`Paid call over getTransaction alone at p50 (gate + HTTP + handler): ${gate(paid.sequential)} ms (1 in flight), ` +
    `${gate(paid.concurrent)} ms (${paid.concurrent.concurrency} in flight); less the free route's p50 as well: ${gateOnly(paid.sequential)} ms ` +
    `and ${gateOnly(paid.concurrent)} ms. Service CPU per paid call beyond its getTransaction client work and a free call's: ` +
    `${ownCpu(paid.sequential)} µs (1 in flight), ${ownCpu(paid.concurrent)} µs (${paid.concurrent.concurrency} in flight).`)
  const inService = (set: PaidCallSet) => `${ms(set.serviceElapsed.p50)} ms (p99 ${ms(set.serviceElapsed.p99)})`
  out.push(`Time inside the service per paid call (its audit log: reply.elapsedTime at onResponse), p50: ${inService(paid.sequential)} ` +
    `1 in flight, ${inService(paid.concurrent)} ${paid.concurrent.concurrency} in flight.`)
  out.push(`RPC requests per paid call: ${rpcPerCall(paid.sequential)} (1 in flight); ${rpcPerCall(paid.concurrent)} (${paid.concurrent.concurrency} in flight). ` +
    `Price API requests during the calls: ${paid.priceApiCalls}. Statuses: ${statuses(paid.sequential.paid)}; ${statuses(paid.concurrent.paid)}`)
  const x402 = paid.x402
  out.push('')
  out.push(`x402 paid calls: GET ${paid.path} with PAYMENT-SIGNATURE carrying a fresh payer-signed exact transaction; the service verifies ` +
    '(simulation), runs the handler, co-signs as fee payer, sends and confirms, then answers. RPC alone = simulateTransaction, ' +
    'sendTransaction and getSignatureStatuses through the service\'s RPC client, over transactions of the same shape, same concurrency.')
  out.push(table(
    ['run', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'calls', 'server CPU µs/call', 'client CPU µs/call'],
    [
      callRow('x402 paid call, 1 in flight', x402.sequential.x402),
      callRow('its RPC calls alone, 1 in flight', x402.sequential.rpcAlone),
      callRow('seed paid call (proof), 1 in flight', paid.sequential.paid),
      callRow(`x402 paid call, ${x402.concurrent.concurrency} in flight`, x402.concurrent.x402),
      callRow(`its RPC calls alone, ${x402.concurrent.concurrency} in flight`, x402.concurrent.rpcAlone),
      callRow(`seed paid call (proof), ${paid.concurrent.concurrency} in flight`, paid.concurrent.paid)
    ]))
  const own = (set: X402CallSet) => ms(set.x402.latency.p50 - set.rpcAlone.latency.p50)
  const ownP99 = (set: X402CallSet) => ms(set.x402.latency.p99 - set.rpcAlone.latency.p99)
  const x402Rpc = (set: X402CallSet) => Object.entries(set.rpcByMethod).map(([method, count]) => `${method} ${(count / set.x402.requests).toFixed(2)}`).join(', ') || 'none'
  out.push(`x402 split at p50: RPC ${ms(x402.sequential.rpcAlone.latency.p50)} ms + own ${own(x402.sequential)} ms (1 in flight; p99 own ${ownP99(x402.sequential)} ms), ` +
    `RPC ${ms(x402.concurrent.rpcAlone.latency.p50)} ms + own ${own(x402.concurrent)} ms (${x402.concurrent.concurrency} in flight). ` +
    `Time inside the service (audit log) p50 ${ms(x402.sequential.serviceElapsed.p50)} ms (p99 ${ms(x402.sequential.serviceElapsed.p99)}). ` +
    `RPC requests per x402 call: ${x402Rpc(x402.sequential)}. Statuses: ${statuses(x402.sequential.x402)}; ${statuses(x402.concurrent.x402)}`)
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
      callRow('tools/call get_manifest', mcp.mcpFree)
    ]))
  out.push(`MCP over HTTP at p50: paid ${ms(mcp.mcpPaid.latency.p50 - mcp.httpPaid.latency.p50)} ms, free ${ms(mcp.mcpFree.latency.p50 - mcp.httpFree.latency.p50)} ms ` +
    '(the JSON-RPC envelope, the SDK\'s per-request server and transport, schema checks). Statuses: ' +
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
  out.push(table(
    ['paid call GET ' + paid.path, 'SQLite p50 ms', 'SQLite p99 ms', 'PostgreSQL p50 ms', 'PostgreSQL p99 ms', 'PostgreSQL req/s'],
    [[paid.sequential, pgStore.paid.sequential] as const, [paid.concurrent, pgStore.paid.concurrent] as const].map(([lite, post]) => [
      `${lite.concurrency} in flight`, ms(lite.paid.latency.p50), ms(lite.paid.latency.p99), ms(post.paid.latency.p50), ms(post.paid.latency.p99),
      integer(post.paid.requestsPerSecond)
    ])))
  out.push(`Time inside the service per paid call on PostgreSQL, p50: ${ms(pgStore.paid.sequential.serviceElapsed.p50)} ms (1 in flight), ` +
    `${ms(pgStore.paid.concurrent.serviceElapsed.p50)} ms (${pgStore.paid.concurrent.concurrency} in flight); ` +
    `${integer(pgStore.paid.sequential.paid.requests + pgStore.paid.concurrent.paid.requests)} calls.`)
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
