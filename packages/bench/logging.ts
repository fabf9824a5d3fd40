// What logging costs under PM2: the built service in PM2 cluster mode (one worker, the project's
// ecosystem file, a PM2 daemon of its own), its manifest under load, with logs on stdout (PM2 reads
// every line over IPC and writes its out file) and with LOG_FILE (pino writes the file itself), at
// LOG_LEVEL=info (two lines per request) and warn (none). Counted: requests/s, latency, and CPU per
// request of the worker and of the PM2 daemon. Standalone: `npx tsx packages/bench/logging.ts`.
import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { PROJECT_ROOT } from '../../project.js'
import { mergeRounds, type LoadFigures, type LoggingFigures, type LoggingRun } from './figures.js'
import { runLoad, type LoadShape } from './load.js'
import { cpuSeconds, freePort } from './processes.js'

const PM2 = join(PROJECT_ROOT, 'node_modules', 'pm2', 'bin', 'pm2')
const PATH = '/.well-known/agent.json'

interface Pm2Process { pid: number, pm2_env: { status: string } }

/**
 * Runs each configuration in turn on one PM2 daemon: start, warm up, `shape.rounds` measured runs,
 * delete. `env` points the service at its RPC and price API (nothing is paid here).
 */
export async function measureLogging (options: { env: Record<string, string>, shape: LoadShape, progress: (message: string) => void }): Promise<LoggingFigures> {
  const root = mkdtempSync(join(tmpdir(), 'token-merchant-logging-'))
  const install = join(root, 'install')
  const home = join(root, 'pm2')
  mkdirSync(install)
  mkdirSync(home)
  copyFileSync(join(PROJECT_ROOT, 'ecosystem.config.cjs'), join(install, 'ecosystem.config.cjs'))
  symlinkSync(join(PROJECT_ROOT, 'dist'), join(install, 'dist'))
  const port = await freePort()
  const baseEnv = {
    PATH: process.env.PATH ?? '',
    HOME: root,
    PM2_HOME: home,
    PM2_INSTANCES: '1',
    ...options.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_PATH: join(root, 'merchant.db'),
    REGISTRY_REFRESH_SECONDS: '86400'
  }
  const pm2 = async (env: Record<string, string>, ...args: string[]) => await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [PM2, ...args], { cwd: root, env, timeout: 60_000 }, (error, stdout) => error === null ? resolve(stdout) : reject(error))
  })
  const online = async (env: Record<string, string>) => {
    for (let i = 0; i < 240; i++) {
      const ready = await fetch(`http://127.0.0.1:${port}/health/live`).then(res => res.ok, () => false)
      if (ready) {
        const list = JSON.parse((await pm2(env, 'jlist')).trim().split('\n').at(-1) ?? '[]') as Pm2Process[]
        const worker = list.find(p => p.pm2_env.status === 'online')
        if (worker !== undefined) return worker.pid
      }
      await sleep(250)
    }
    throw new Error('the service did not come online under PM2')
  }

  const runs: LoggingRun[] = []
  try {
    for (const destination of ['stdout', 'LOG_FILE'] as const) {
      for (const level of ['info', 'warn'] as const) {
        options.progress(`logging under PM2: ${destination}, LOG_LEVEL=${level}`)
        const logFile = join(install, 'logs', `service-${level}.log`)
        const outFile = join(install, 'logs', 'out.log')
        const env: Record<string, string> = { ...baseEnv, LOG_LEVEL: level, ...(destination === 'LOG_FILE' ? { LOG_FILE: logFile } : {}) }
        await pm2(env, 'start', join(install, 'ecosystem.config.cjs'))
        const worker = await online(env)
        const daemon = Number(readFileSync(join(home, 'pm2.pid'), 'utf8'))
        const target = { url: `http://127.0.0.1:${port}${PATH}`, pid: worker }
        await runLoad(target, { ...options.shape, duration: options.shape.warmup })
        const bytesOf = () => [outFile, logFile].reduce((sum, file) => { try { return sum + statSync(file).size } catch { return sum } }, 0)
        const bytesBefore = bytesOf()
        const daemonBefore = cpuSeconds(daemon)
        const rounds: LoadFigures[] = []
        for (let i = 0; i < options.shape.rounds; i++) rounds.push(await runLoad(target, options.shape))
        const figures = mergeRounds(rounds)
        // Lines still queued reach the file within a moment; wait for it before counting bytes.
        await sleep(500)
        runs.push({
          destination,
          level,
          figures,
          daemonCpuPerRequestUs: (cpuSeconds(daemon) - daemonBefore) * 1e6 / figures.requests,
          logBytesPerRequest: (bytesOf() - bytesBefore) / figures.requests
        })
        await pm2(env, 'delete', 'token-merchant')
      }
    }
  } finally {
    await pm2(baseEnv, 'kill').catch(() => '')
    rmSync(root, { recursive: true, force: true })
  }
  return { path: PATH, runs }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Standalone: no chain needed for the manifest; the service starts with its RPC unreachable.
  const began = performance.now()
  const figures = await measureLogging({
    env: { SOLANA_NETWORK: 'localnet', SOLANA_RPC_URL: 'http://127.0.0.1:9', PAYMENT_ADDRESS: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx', PRICE_API_URL: 'http://127.0.0.1:9' },
    shape: { connections: 10, duration: 5, pipelining: 1, rounds: 2, warmup: 2 },
    progress: message => process.stdout.write(`[${((performance.now() - began) / 1000).toFixed(0).padStart(3)} s] ${message}\n`)
  })
  const { loggingTable } = await import('./report.js')
  process.stdout.write(`${loggingTable(figures)}\n`)
}
