import Database from 'better-sqlite3'
import { accessSync, constants, existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import pg from 'pg'
import { ConfigError, ConfigSchema, planFromEnvironment, type ConfigPlan } from './config.js'
import { maskDatabaseUrl } from './db/database-url.js'
import { readKeypairAddress } from './lib/solana/keypair-file.js'
import { NetworkMismatchError } from './lib/solana/network-check.js'
import { createRpcConnection, servesAs } from './lib/solana/rpc-connection.js'
import { listenProblem } from './lib/ops/listen-problem.js'
import { killTimeoutProblem, SHUTDOWN_TAIL_MS } from './lib/ops/shutdown-grace.js'

/** The longest any one network check may take: a check before a reload must not hang it. */
const NETWORK_CHECK_MS = 5000

export interface CheckOutcome {
  check: string
  outcome: 'ok' | 'warning' | 'problem' | 'skipped'
  detail: string
}

export interface ConfigCheck {
  ok: boolean
  /** KEY=value lines of what the service would run with, secrets masked; empty when the settings are invalid. */
  effective: string[]
  checks: CheckOutcome[]
}

/** Settings printed as *** whatever they hold. */
const SECRET_KEYS = new Set(['PRICE_API_KEY', 'METRICS_TOKEN', 'MPP_SECRET_KEY'])

/** An RPC or API URL without what may be a credential in it: user info, query, long path segments (API keys). */
export function maskUrl (value: string): string {
  try {
    const url = new URL(value)
    if (url.password !== '') url.password = '***'
    if (url.search !== '') url.search = '***'
    url.pathname = url.pathname.split('/').map(segment => segment.length >= 16 ? '***' : segment).join('/')
    return url.href
  } catch {
    return '***'
  }
}

function shown (key: string, value: unknown): string {
  if (SECRET_KEYS.has(key)) return '***'
  if (key === 'DATABASE_URL') return maskDatabaseUrl(String(value))
  if (key.endsWith('_URL') && typeof value === 'string') return maskUrl(value)
  return String(value)
}

function effectiveLines (plan: ConfigPlan): string[] {
  const lines = Object.keys(ConfigSchema.properties)
    .filter(key => (plan as Record<string, unknown>)[key] !== undefined)
    .map(key => `${key}=${shown(key, (plan as Record<string, unknown>)[key])}`)
  return [
    ...lines,
    '# resolved',
    `payment address: ${plan.paymentAddress ?? `(the keypair start-up creates at ${plan.keypairToCreate})`}`,
    `payment RPC: ${plan.network} at ${maskUrl(plan.rpcUrl)}`,
    `data RPC: ${plan.dataNetwork} at ${maskUrl(plan.dataRpcUrl)}`,
    `x402 network: ${plan.x402Network}; fee payer keypair: ${plan.feePayerKeypairPath}`,
    `store: ${plan.DATABASE_URL === undefined ? `SQLite at ${plan.DATABASE_PATH}` : `PostgreSQL at ${maskDatabaseUrl(plan.DATABASE_URL)}`}`,
    `close grace: ${plan.closeGraceMs} ms`
  ]
}

function reasonOf (error: unknown): string {
  const { code, message } = error as { code?: unknown, message?: unknown }
  return typeof code === 'string' && !String(message).includes(code) ? `${code}: ${String(message)}` : String(message)
}

/** The nearest folder that exists on the way to `path`, and whether this user may write into it. */
function writableFolder (path: string): boolean {
  let folder = dirname(resolve(path))
  while (!existsSync(folder)) folder = dirname(folder)
  try {
    accessSync(folder, constants.W_OK)
    return true
  } catch {
    return false
  }
}

async function checkDatabase (plan: ConfigPlan, offline: boolean): Promise<CheckOutcome> {
  if (plan.DATABASE_URL === undefined) {
    const path = plan.DATABASE_PATH
    if (!existsSync(path)) {
      return writableFolder(path)
        ? { check: 'database', outcome: 'ok', detail: `SQLite ${path} does not exist yet; start-up creates it` }
        : { check: 'database', outcome: 'problem', detail: `DATABASE_PATH: ${path} cannot be created (no write access to its folder)` }
    }
    try {
      const db = new Database(path, { readonly: true, fileMustExist: true })
      try {
        db.prepare('SELECT count(*) FROM sqlite_master').get()
      } finally {
        db.close()
      }
      return { check: 'database', outcome: 'ok', detail: `SQLite ${path} opens` }
    } catch (error) {
      return { check: 'database', outcome: 'problem', detail: `DATABASE_PATH: ${path}: ${reasonOf(error)}` }
    }
  }
  const masked = maskDatabaseUrl(plan.DATABASE_URL)
  if (offline) return { check: 'database', outcome: 'skipped', detail: `PostgreSQL at ${masked} (--offline)` }
  const client = new pg.Client({ connectionString: plan.DATABASE_URL, connectionTimeoutMillis: NETWORK_CHECK_MS, application_name: 'token-merchant check-config' })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return { check: 'database', outcome: 'ok', detail: `PostgreSQL at ${masked} answers` }
  } catch (error) {
    return { check: 'database', outcome: 'problem', detail: `DATABASE_URL ${masked}: ${reasonOf(error)}` }
  } finally {
    await client.end().catch(() => {})
  }
}

/** Whether a token-merchant answers on the port (its liveness document), as under PM2 before a reload. */
async function merchantAnswers (port: number, host: string): Promise<boolean> {
  const where = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  try {
    const res = await fetch(`http://${where}:${port}/health/live`, { signal: AbortSignal.timeout(2000) })
    return res.ok && (await res.json() as { status?: unknown }).status === 'ok'
  } catch {
    return false
  }
}

/**
 * The address, probed as start-up probes it. A port held by a running token-merchant is a warning,
 * not a problem: that is what PM2's reload (which runs this check first) replaces.
 */
async function checkPort (plan: ConfigPlan): Promise<CheckOutcome> {
  const problem = await listenProblem(plan.PORT, plan.HOST)
  if (problem === undefined) return { check: 'port', outcome: 'ok', detail: plan.PORT === 0 ? 'PORT 0: a free port is picked at start' : `${plan.HOST}:${plan.PORT} is free` }
  if (problem.includes('EADDRINUSE') && await merchantAnswers(plan.PORT, plan.HOST)) {
    return { check: 'port', outcome: 'warning', detail: `${plan.HOST}:${plan.PORT} is held by a running token-merchant (it answers /health/live): a PM2 reload takes it over; another service could not start there` }
  }
  return { check: 'port', outcome: 'problem', detail: problem }
}

/** The RPCs (genesis hash of the configured cluster) and the fee payer's balance. */
async function checkChain (plan: ConfigPlan, offline: boolean): Promise<CheckOutcome[]> {
  if (offline) return [{ check: 'rpc', outcome: 'skipped', detail: 'RPC genesis and fee payer balance (--offline)' }]
  const timeoutMs = Math.min(plan.RPC_TIMEOUT_MS, NETWORK_CHECK_MS)
  const payment = createRpcConnection({ role: 'payment', network: plan.network, url: plan.rpcUrl, timeoutMs })
  const dataOptions = { network: plan.dataNetwork, url: plan.dataRpcUrl, timeoutMs: Math.min(plan.dataRpcTimeoutMs, NETWORK_CHECK_MS) }
  const connections = servesAs(payment, dataOptions) ? [payment] : [payment, createRpcConnection({ role: 'data', ...dataOptions })]
  const outcomes = await Promise.all(connections.map(async (connection): Promise<CheckOutcome> => {
    const variable = connection.role === 'payment' ? 'SOLANA_RPC_URL' : 'DATA_RPC_URL'
    const where = `${connection.network} at ${maskUrl(connection.url)}`
    try {
      const state = await connection.health.check()
      return state === 'up'
        ? { check: `${connection.role} rpc`, outcome: 'ok', detail: `${where} serves ${connection.network}` }
        // The service starts without its RPC (README): a warning, not a problem that would stop a PM2 reload.
        : { check: `${connection.role} rpc`, outcome: 'warning', detail: `${variable}: ${where} is unreachable (waited up to ${connection.timeoutMs} ms); the service starts and answers payments 503 RPC_UNAVAILABLE, nothing charged, until it answers` }
    } catch (error) {
      if (error instanceof NetworkMismatchError) return { check: `${connection.role} rpc`, outcome: 'problem', detail: error.message }
      throw error
    }
  }))
  if (outcomes[0].outcome !== 'ok') return outcomes
  if (!existsSync(plan.feePayerKeypairPath)) {
    return [...outcomes, { check: 'fee payer', outcome: 'warning', detail: `${plan.feePayerKeypairPath} is created at start-up: fund its address with SOL then` }]
  }
  const feePayer = readKeypairAddress(plan.feePayerKeypairPath)
  try {
    const lamports = (await payment.rpc.getBalance(feePayer).send()).value
    const floor = BigInt(plan.X402_FEE_PAYER_MIN_LAMPORTS)
    return [...outcomes, lamports < floor
      ? { check: 'fee payer', outcome: 'warning', detail: `${feePayer} holds ${lamports} lamports, below X402_FEE_PAYER_MIN_LAMPORTS (${floor}): fund it, or x402 settlements fail once it cannot pay fees` }
      : { check: 'fee payer', outcome: 'ok', detail: `${feePayer} holds ${lamports} lamports` }]
  } catch (error) {
    return [...outcomes, { check: 'fee payer', outcome: 'problem', detail: `SOLANA_RPC_URL: the fee payer's balance could not be read: ${reasonOf(error)}` }]
  }
}

/**
 * Everything start-up validates, without starting: .env and the environment read as the service
 * reads them (planFromEnvironment, which loads .env into process.env), keypairs, PM2's
 * kill_timeout (PM2_KILL_TIMEOUT_MS, as ecosystem.config.cjs reads it), whether HOST:PORT can be listened on,
 * then (unless offline) the database, the RPCs' genesis hashes and the fee payer's balance, each
 * bounded by a short timeout. Writes nothing.
 */
export async function checkConfig (options: { offline: boolean }, env: NodeJS.ProcessEnv = process.env): Promise<ConfigCheck> {
  let plan: ConfigPlan
  try {
    plan = planFromEnvironment(env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return { ok: false, effective: [], checks: error.problems.map(problem => ({ check: 'settings', outcome: 'problem', detail: problem })) }
  }
  const checks: CheckOutcome[] = [{ check: 'settings', outcome: 'ok', detail: 'every setting is valid' }]
  for (const warning of plan.warnings) checks.push({ check: 'keypair', outcome: 'warning', detail: warning })
  if (plan.keypairToCreate !== undefined) {
    checks.push({ check: 'keypair', outcome: 'warning', detail: `MERCHANT_KEYPAIR_PATH: ${plan.keypairToCreate} does not exist; start-up creates it (back it up then)` })
  }
  // ecosystem.config.cjs sets PM2's kill_timeout from PM2_KILL_TIMEOUT_MS; a worker checks it against the grace at start.
  const killTimeout = env.PM2_KILL_TIMEOUT_MS === undefined
    ? undefined
    : killTimeoutProblem({ pm_id: 'check-config', kill_timeout: env.PM2_KILL_TIMEOUT_MS }, plan.closeGraceMs + SHUTDOWN_TAIL_MS)
  if (killTimeout !== undefined) checks.push({ check: 'pm2', outcome: 'problem', detail: killTimeout })
  const [port, database, chain] = await Promise.all([checkPort(plan), checkDatabase(plan, options.offline), checkChain(plan, options.offline)])
  checks.push(port, database, ...chain)
  return { ok: checks.every(check => check.outcome !== 'problem'), effective: effectiveLines(plan), checks }
}

/** The report as a person reads it. */
export function formatConfigCheck (report: ConfigCheck): string {
  const marks: Record<CheckOutcome['outcome'], string> = { ok: 'ok     ', warning: 'warning', problem: 'PROBLEM', skipped: 'skipped' }
  const checks = report.checks.map(c => `${marks[c.outcome]} ${c.check}: ${c.detail}`)
  const verdict = report.ok ? 'configuration ok' : 'configuration has problems: the service would not start (or not work) with it'
  return [...report.effective, ...(report.effective.length > 0 ? [''] : []), ...checks, verdict].join('\n')
}
