// The processes under load: the built service (dist/server.js) and the bare Fastify baseline, each
// in its own process. Both say they are ready over IPC (`process.send('ready')`, as PM2 expects),
// which works at any log level; a port picked beforehand says where they listen. Their output goes
// to a file, as in production, not through this process (which is busy generating the load).
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PROJECT_ROOT } from '../../project.js'

export const TSX_IMPORT = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href
const START_TIMEOUT_MS = 60_000

export interface BenchProcess {
  url: string
  pid: number
  /** Lines it wrote at pino level warn (40) or above, or that are not pino JSON (a crash trace, say). */
  warnings (): string[]
  stop (): Promise<void>
}

// /proc/<pid>/stat counts CPU time in clock ticks of 1/100 s on Linux (getconf CLK_TCK).
const CLOCK_TICKS_PER_SECOND = 100

/** How the processes started here ended, by pid: a load run against a dead one says so. */
const endings = new Map<number, string>()

/** User + system CPU seconds a process has used so far (Linux). */
export function cpuSeconds (pid: number): number {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    throw new Error(`process ${pid} ${endings.get(pid) ?? 'is gone'}`)
  }
  // Fields after "pid (comm) ": state is the first; utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
}

/**
 * CPU seconds every process of the machine has used so far, all cores summed (Linux /proc/stat:
 * user, nice, system, irq, softirq and steal; the kernel's loopback traffic included). Over a
 * measure, divided by its seconds: how many of the machine's cores were busy.
 */
export function machineCpuSeconds (): number {
  const total = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]
  const [user, nice, system, , , irq, softirq, steal] = total.slice('cpu'.length).trim().split(/\s+/).map(Number)
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_SECOND
}

/** CPU seconds this process has used so far. */
export function ownCpuSeconds (): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}

function belowWarn (line: string): boolean {
  try {
    return ((JSON.parse(line) as { level?: number }).level ?? 0) < 40
  } catch {
    return false
  }
}

/** A port free right now on 127.0.0.1 (the process then binds it; nothing else here takes ports meanwhile). */
export async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

async function startProcess (args: string[], env: Record<string, string>, cwd: string, logPath: string): Promise<BenchProcess> {
  const port = await freePort()
  const log = openSync(logPath, 'w')
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', log, log, 'ipc']
  })
  closeSync(log)
  const output = () => readFileSync(logPath, 'utf8')
  child.once('exit', (code, signal) => endings.set(child.pid as number, `(${args.at(-1)}) ended: ${signal === null ? `exit code ${code}` : `killed by ${signal}`}`))

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${args.at(-1)} did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS)
    const onExit = (code: number | null) => fail(new Error(`${args.at(-1)} exited (${code}) before it was ready: ${output().trim()}`))
    const onMessage = (message: unknown) => {
      if (message !== 'ready') return
      cleanUp()
      child.disconnect()
      resolve()
    }
    function cleanUp () {
      clearTimeout(timer)
      child.off('exit', onExit)
      child.off('message', onMessage)
    }
    function fail (error: Error) {
      cleanUp()
      child.kill('SIGKILL')
      reject(error)
    }
    child.on('message', onMessage)
    child.once('exit', onExit)
  })

  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    warnings: () => output().split('\n').filter(line => line !== '' && !belowWarn(line)),
    async stop () {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
  }
}

/**
 * With BENCH_CPU_PROF_DIR set, the service and the baseline write V8 CPU profiles there when they
 * stop (`<dir>/service`, `<dir>/baseline`; open them in Chrome DevTools or speedscope).
 */
function cpuProfileArgs (name: 'service' | 'baseline'): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR
  return dir === undefined || dir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(dir, name)}`]
}

/**
 * The built service, `node dist/server.js`, with only `env` (plus PATH, HOST and PORT). It runs in
 * `cwd` (a scratch folder), so no developer .env is read and its files stay there.
 */
export async function startService (env: Record<string, string>, cwd: string, logPath: string): Promise<BenchProcess> {
  return await startProcess([...cpuProfileArgs('service'), join(PROJECT_ROOT, 'dist', 'server.js')], env, cwd, logPath)
}

/** An answer the baseline repeats byte for byte: status and JSON body text (and, for the reference, the headers). */
export interface BaselineAnswer {
  status: number
  body: string
  headers?: Record<string, string>
}

/** The bare Fastify baseline (packages/bench/baseline-server.ts) answering `answers`: path -> status and body. */
export async function startBaseline (answers: Record<string, BaselineAnswer>, cwd: string, logPath: string): Promise<BenchProcess> {
  const file = join(cwd, 'baseline-answers.json')
  writeFileSync(file, JSON.stringify(answers))
  const script = join(PROJECT_ROOT, 'packages', 'bench', 'baseline-server.ts')
  return await startProcess([...cpuProfileArgs('baseline'), '--import', TSX_IMPORT, script], { BASELINE_ANSWERS_FILE: file }, cwd, logPath)
}

/** The MCP framing floor (packages/bench/bare-mcp-server.ts): the SDK's server and transport with one constant tool. */
export async function startBareMcp (cwd: string, logPath: string): Promise<BenchProcess> {
  return await startProcess(['--import', TSX_IMPORT, join(PROJECT_ROOT, 'packages', 'bench', 'bare-mcp-server.ts')], {}, cwd, logPath)
}

/** What an x402 peer guards: the same route and price, paid to the same merchant in the same mint. */
export interface PeerTerms {
  path: string
  amount: string
  asset: string
  payTo: string
  feePayer: string
}

/** A real facilitator for a peer (@x402/core's in-process one, @x402/svm's exact scheme): the chain and the fee payer's keypair file. */
export interface PeerFacilitator {
  rpcUrl: string
  feePayerKeypairPath: string
}

/**
 * The official x402 middleware for Express or Hono (packages/bench/peers/x402-peer.ts) serving
 * `manifest` and guarding `terms`; it verifies and settles when given a `facilitator`, else it
 * only answers 402s.
 */
export async function startPeer (peer: 'express' | 'hono', manifest: string, terms: PeerTerms, cwd: string, logPath: string, facilitator?: PeerFacilitator): Promise<BenchProcess> {
  const file = join(cwd, 'peer-manifest.json')
  writeFileSync(file, manifest)
  const script = join(PROJECT_ROOT, 'packages', 'bench', 'peers', 'x402-peer.ts')
  const settles: Record<string, string> = facilitator === undefined ? {} : { PEER_FACILITATOR_RPC_URL: facilitator.rpcUrl, PEER_FEE_PAYER_KEYPAIR_PATH: facilitator.feePayerKeypairPath }
  return await startProcess(['--import', TSX_IMPORT, script], { PEER: peer, PEER_MANIFEST_FILE: file, PEER_TERMS: JSON.stringify(terms), ...settles }, cwd, logPath)
}

/** Resident set size of a process in MB (Linux /proc). */
export function residentMegabytes (pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kilobytes = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1])
  return kilobytes / 1024
}
