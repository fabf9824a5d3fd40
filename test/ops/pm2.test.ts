// The service under the real PM2 (node_modules/.bin/pm2) in cluster mode, started from the
// project's own ecosystem file as an operator would: built once, a PM2 daemon of its own (its
// PM2_HOME in a temp folder, killed at the end whatever happens), everything on loopback.
import Database from 'better-sqlite3'
import { execFile, execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { PRICE_PATH, startPriceApi } from '@token-merchant/localnet/price-api'
import { PROJECT_ROOT } from '../../project.js'
import { startLoad } from '../fixtures/http-load.js'
import { stopOnExit } from '../fixtures/stop-on-exit.js'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'

const PM2 = join(PROJECT_ROOT, 'node_modules', 'pm2', 'bin', 'pm2')
const WORKERS = 2
const PRICE = 50_000n

// A bound for a loaded machine (PM2 starts six workers here), not a measure: it takes under a minute idle.
t.setTimeout(360_000)

/** `npm run build`, unless dist/ is newer than every source file tsc compiles. */
function buildIfStale (): void {
  const built = existsSync(join(PROJECT_ROOT, 'dist', 'server.js')) ? statSync(join(PROJECT_ROOT, 'dist', 'server.js')).mtimeMs : 0
  const { include } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] }
  const newest = include.flatMap(pattern => {
    const dir = pattern.split('/')[0]
    if (dir.endsWith('.ts')) return [join(PROJECT_ROOT, dir)]
    return (readdirSync(join(PROJECT_ROOT, dir), { recursive: true }) as string[]).filter(file => file.endsWith('.ts')).map(file => join(PROJECT_ROOT, dir, file))
  }).reduce((latest, file) => Math.max(latest, statSync(file).mtimeMs), 0)
  if (newest > built) execFileSync('npm', ['run', 'build', '--silent'], { cwd: PROJECT_ROOT, stdio: 'inherit' })
}

interface Pm2Process { pid: number, pm2_env: { status: string, exit_code?: number, NODE_APP_INSTANCE?: number } }

async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise(resolve => server.close(resolve))
  return port
}

/** A base port with the next one free too: METRICS_PORT + worker number. */
async function freePortPair (): Promise<number> {
  for (;;) {
    const port = await freePort()
    const next = createServer()
    const free = await new Promise<boolean>(resolve => {
      next.once('error', () => resolve(false))
      next.listen(port + 1, '127.0.0.1', () => resolve(true))
    })
    if (free) {
      await new Promise(resolve => next.close(resolve))
      return port
    }
  }
}

/** Sums a Prometheus counter over the series whose labels include `labels`. */
function counterSum (text: string, name: string, labels: Record<string, string>): number {
  let sum = 0
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`).exec(line)
    if (match === null) continue
    if (Object.entries(labels).every(([key, value]) => match[1].includes(`${key}="${value}"`))) sum += Number(match[2])
  }
  return sum
}

t.test('under PM2: start from anywhere, reload under load, metrics, stop with a paid request in flight', async (t) => {
  buildIfStale()

  const paid = await startPaidChain(t)
  const prices = await startPriceApi({ host: '127.0.0.1' })
  t.teardown(async () => await prices.stop())

  // An installation of the built service: the ecosystem file as shipped, next to dist/. The
  // folder (PM2_HOME too) is removed only after the daemon is killed, in the same teardown.
  const root = mkdtempSync(join(tmpdir(), 'token-merchant-pm2-'))
  const install = join(root, 'install')
  for (const dir of [install, join(root, 'elsewhere'), join(root, 'pm2')]) mkdirSync(dir)
  copyFileSync(join(PROJECT_ROOT, 'ecosystem.config.cjs'), join(install, 'ecosystem.config.cjs'))
  symlinkSync(join(PROJECT_ROOT, 'dist'), join(install, 'dist'))
  const databasePath = join(install, 'data', 'merchant.db')
  mkdirSync(join(install, 'data'))

  const port = await freePort()
  const metricsPort = await freePortPair()
  const baseUrl = `http://127.0.0.1:${port}`
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: root,
    PM2_HOME: join(root, 'pm2'),
    PM2_INSTANCES: String(WORKERS),
    PM2_KILL_TIMEOUT_MS: '20000',
    ...paid.env,
    PRICE_API_URL: prices.url,
    DATABASE_PATH: databasePath,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'info',
    // A grace of 2000 + max(2 × 3000 + 1000, 2 × 2000) + (2000 + 1000) + 1000 = 13 s, derived.
    RPC_TIMEOUT_MS: '2000',
    UPSTREAM_TIMEOUT_MS: '3000',
    X402_SETTLEMENT_TIMEOUT_MS: '1000',
    METRICS_ENABLED: 'true',
    METRICS_PORT: String(metricsPort),
    // The reload test is one client sending thousands of requests a minute: the per-client limit
    // (on by default, 300 a minute) would answer most of them 429, which is not what it measures.
    RATE_LIMIT_MAX: '0'
  }

  const pm2 = async (...args: string[]) => await new Promise<{ code: number, stdout: string, stderr: string }>(resolve => {
    execFile(process.execPath, [PM2, ...args], { cwd: join(root, 'elsewhere'), env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr })
    })
  })
  let killed = false
  const kill = () => {
    if (killed) return
    killed = true
    try {
      execFileSync(process.execPath, [PM2, 'kill'], { env, stdio: 'ignore', timeout: 30_000 })
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }
  t.teardown(kill)
  // Even when the test is cut short (a crash, tap's timeout, Ctrl-C), the daemon goes.
  stopOnExit(kill)
  // The JSON is the last line (a fresh PM2_HOME makes PM2 print its banner first).
  const processes = async () => JSON.parse((await pm2('jlist')).stdout.trim().split('\n').at(-1) ?? '[]') as Pm2Process[]
  async function waitOnline (exclude: number[] = []) {
    for (let i = 0; i < 240; i++) {
      const online = (await processes()).filter(p => p.pm2_env.status === 'online' && !exclude.includes(p.pid))
      const ready = await fetch(`${baseUrl}/health/ready`).then(res => res.status === 200, () => false)
      if (online.length === WORKERS && ready) return online.map(p => p.pid)
      await sleep(500)
    }
    throw new Error('the workers did not come online')
  }

  t.equal((await pm2('start', join(install, 'ecosystem.config.cjs'))).code, 0, 'pm2 start exits 0')
  const firstPids = await waitOnline()
  t.ok(existsSync(join(install, 'logs', 'out.log')), 'relative paths resolve against the ecosystem file\'s folder')
  t.notOk(existsSync(join(root, 'elsewhere', 'logs')), 'not against the directory pm2 ran in')

  await t.test('metrics of every worker, scraped one port each, add up to the requests sent', async (t) => {
    const unpaid = 12
    for (let i = 0; i < unpaid; i++) t.equal((await fetch(`${baseUrl}/api/fetch-price/SOL`)).status, 402)
    const buyer = await paid.newBuyer()
    const signature = await paid.pay(buyer, PRICE)
    const delivered = await fetch(`${baseUrl}/api/fetch-price/SOL`, { headers: proofHeaders(signature, buyer.address) })
    t.equal(delivered.status, 200, 'a paid call is delivered')

    const scrapes = await Promise.all([0, 1].map(async worker => await (await fetch(`http://127.0.0.1:${metricsPort + worker}/metrics`)).text()))
    const total = (name: string, labels: Record<string, string>) => scrapes.reduce((sum, text) => sum + counterSum(text, name, labels), 0)
    t.equal(total('http_requests_total', { route: '/api/fetch-price/:token', status: '402' }), unpaid, 'every 402 counted once')
    t.equal(total('payment_challenges_total', { service: 'fetch-price' }), unpaid)
    t.equal(total('payment_attempts_total', { service: 'fetch-price', flow: 'proof', outcome: 'DELIVERED' }), 1)
    t.equal(total('payment_settlements_total', { service: 'fetch-price', outcome: 'settled' }), 1)
    t.ok(total('solana_rpc_requests_total', { role: 'payment', method: 'getTransaction', outcome: 'ok' }) >= 1, 'the proof\'s getTransaction is counted')
    t.ok(scrapes.every(text => /worker="\d"/.test(text)), 'each scrape names its worker')
  })

  await t.test('a bad .env and a reload through the ecosystem file: refused with the reason, the old workers keep serving', async t => {
    // A variable the environment leaves unset, so .env decides it (variables already set win).
    writeFileSync(join(install, '.env'), 'PROOF_FAILURE_LIMIT=lots\n')
    const reload = await pm2('reload', join(install, 'ecosystem.config.cjs'))
    rmSync(join(install, '.env'))
    t.not(reload.code, 0, 'pm2 reload exits non-zero')
    t.match(reload.stdout + reload.stderr, /check-config found problems; nothing was started or reloaded:\n\s+PROOF_FAILURE_LIMIT: "lots" is not a whole number/)
    const online = (await processes()).filter(p => p.pm2_env.status === 'online').map(p => p.pid)
    t.same(online.sort(), [...firstPids].sort(), 'the same workers are online')
    t.equal((await fetch(`${baseUrl}/health/live`)).status, 200, 'and answer')
  })

  await t.test('pm2 reload under continuous load fails no request, twice', async (t) => {
    let pids = firstPids
    for (let round = 1; round <= 2; round++) {
      const load = startLoad(baseUrl, [{ path: '/health/live', status: 200 }, { path: '/api/fetch-price/SOL', status: 402 }], { connections: 3, pauseMs: 2 })
      await sleep(300)
      // The command returns once every worker was replaced by one that said it is ready. Round 1
      // reloads through the ecosystem file (configuration checked first), round 2 by name.
      const target = round === 1 ? join(install, 'ecosystem.config.cjs') : 'token-merchant'
      t.equal((await pm2('reload', target)).code, 0, `reload ${round} exits 0`)
      const newPids = await waitOnline(pids)
      await sleep(300)
      const result = await load.stop()
      t.same(result.failures, {}, `reload ${round}: no failed request (${JSON.stringify(result.failures)})`)
      t.equal(result.failed, 0)
      t.ok(result.ok > 50, `reload ${round}: ${result.ok} requests answered during the reload`)
      t.notSame(newPids.sort(), pids.sort(), 'every worker was replaced')
      pids = newPids
    }
  })

  await t.test('pm2 stop with a slow paid request in flight: it completes, stop exits 0, last lines logged', async (t) => {
    const buyer = await paid.newBuyer()
    const signature = await paid.pay(buyer, PRICE)
    const before = prices.calls()[PRICE_PATH] ?? 0
    prices.fail({ mode: 'slow', delayMs: 2500, path: PRICE_PATH })
    const inFlight = fetch(`${baseUrl}/api/fetch-price/JUP`, { headers: proofHeaders(signature, buyer.address) })
      .then(async res => ({ status: res.status, body: await res.json() as { data?: { mintSymbol: string } } }), () => ({ status: 0, body: {} as { data?: { mintSymbol: string } } }))
    // Stop once the request is past its payment check and waiting on the price source.
    while ((prices.calls()[PRICE_PATH] ?? 0) === before) await sleep(20)

    const stop = await pm2('stop', 'token-merchant')
    const answer = await inFlight
    t.equal(stop.code, 0, 'pm2 stop exits 0')
    const db = new Database(databasePath, { readonly: true })
    t.teardown(() => db.close())
    const claim = db.prepare('SELECT status FROM payment_claims WHERE signature = ?').pluck().get(signature)
    if (answer.status === 200) {
      t.equal(answer.body.data?.mintSymbol, 'JUP', 'the in-flight paid request completed')
      t.equal(claim, 'redeemed', 'and its proof is spent')
    } else {
      t.equal(claim, undefined, `cut (${answer.status}): its proof was released, usable at once`)
    }
    t.equal(answer.status, 200, 'with a grace derived from the timeouts, the request finishes')

    const list = await processes()
    t.ok(list.every(p => p.pm2_env.status === 'stopped'), 'every worker stopped')
    const lines = readFileSync(join(install, 'logs', 'out.log'), 'utf8').trim().split('\n').map(line => JSON.parse(line) as { msg?: string, pid: number, res?: { statusCode: number }, reqId?: string })
    const lastLineOf = new Map(lines.map(line => [line.pid, line.msg]))
    const shutdownPids = new Set(lines.filter(line => line.msg === 'shutting down: finishing in-flight requests').map(line => line.pid))
    t.equal(shutdownPids.size, WORKERS * 3, 'every worker replaced or stopped logged its shutdown')
    t.ok([...shutdownPids].every(pid => lastLineOf.get(pid) === 'stopped'), 'and, as its last line, "stopped"')
    t.ok(lines.some(line => line.msg === 'request completed' && line.res?.statusCode === answer.status), 'the slow request\'s completion is logged')
  })
})
