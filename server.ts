// First: on a Node older than engines.node this stops with one sentence before anything else loads.
import './lib/ops/supported-node.js'
import closeWithGrace from 'close-with-grace'
import fp from 'fastify-plugin'
import app, { createServer } from './app.js'
import { CATALOGUE } from './lib/catalogue/catalogue.js'
import { completeConfig, ConfigError, planFromEnvironment } from './config.js'
import { StoreConfigurationError } from './db/open-store.js'
import { gracefulStop } from './lib/ops/graceful-stop.js'
import { listenErrorProblem, listenProblem } from './lib/ops/listen-problem.js'
import { createLogDestination } from './lib/ops/log-destination.js'
import { killTimeoutProblem, SHUTDOWN_TAIL_MS } from './lib/ops/shutdown-grace.js'

function exitWithProblem (message: string): never {
  process.stderr.write(`token-merchant: ${message}\n`)
  process.exit(1)
}

/** PM2 sends these over IPC: 'shutdown' (shutdown_with_message) and `pm2 reloadLogs`. */
function isMessage (message: unknown, name: string): boolean {
  return message === name || (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === name)
}

async function start () {
  const plan = planFromEnvironment()
  const deadlineMs = plan.closeGraceMs + SHUTDOWN_TAIL_MS
  const killTimeout = killTimeoutProblem(process.env, deadlineMs)
  if (killTimeout !== undefined) exitWithProblem(killTimeout)
  // Nothing is created (keypair, database) before the configuration and the address are known good.
  const address = await listenProblem(plan.PORT, plan.HOST)
  if (address !== undefined) throw new ConfigError([address])
  const config = completeConfig(plan)

  const logs = createLogDestination(config.LOG_FILE)
  const server = createServer(config, logs.stream)
  await server.register(fp(app), { config, catalogue: CATALOGUE })

  if (config.PUBLIC_BASE_URL === undefined) {
    server.log.warn('PUBLIC_BASE_URL is unset: printed URLs are built from each request\'s Host header (checked to be a valid host[:port]); set it in production')
  }
  for (const warning of config.warnings) server.log.warn(warning)
  if (config.merchantKeypairCreated) {
    server.log.warn({ paymentAddress: config.paymentAddress, keypair: config.MERCHANT_KEYPAIR_PATH },
      'created a merchant keypair; payments go to its address (back the file up, or set PAYMENT_ADDRESS)')
  }

  // logrotate (postrotate `kill -USR2`) or `pm2 reloadLogs` moved the file: write to a new one.
  process.on('SIGUSR2', () => logs.reopen())

  const closer = closeWithGrace({
    delay: deadlineMs,
    // SIGUSR2 reopens the log file; close-with-grace would otherwise treat it as a stop signal.
    skip: ['SIGUSR2'],
    logger: false,
    onTimeout: () => server.log.error({ deadlineMs }, 'shutdown did not finish in time; exiting'),
    onSecondSignal: (signal: string) => server.log.error({ signal }, 'second signal during shutdown; exiting now')
  }, async ({ signal, err }) => {
    if (err !== undefined) server.log.error({ err }, 'closing after an error')
    else server.log.info({ signal: signal ?? 'shutdown message', graceMs: config.closeGraceMs }, 'shutting down: finishing in-flight requests')
    await gracefulStop({
      drain: server.shutdown.drain,
      claims: server.shutdown.claims,
      graceMs: config.closeGraceMs,
      closeApp: async () => await server.close(),
      log: server.log
    })
    server.log.info('stopped')
    await logs.flush()
  })
  process.on('message', (message: unknown) => {
    if (isMessage(message, 'shutdown')) closer.close()
    else if (isMessage(message, 'log:reload')) logs.reopen()
  })

  await server.listen({ port: config.PORT, host: config.HOST }).catch((error: unknown) => {
    const problem = listenErrorProblem(error, config.PORT, config.HOST)
    throw problem === undefined ? error : new ConfigError([problem])
  })
  server.log.info({ network: config.network, dataNetwork: config.dataNetwork, paymentAddress: config.paymentAddress, paymentMint: config.paymentMint }, 'token-merchant ready')
  process.send?.('ready') // PM2 wait_ready
}

start().catch((error: unknown) => {
  if (error instanceof ConfigError) exitWithProblem(error.message)
  // Wrong credentials, an unknown database, or the wait for it run out: a setting to fix, said in the same form.
  if (error instanceof StoreConfigurationError) exitWithProblem(new ConfigError([error.message]).message)
  process.stderr.write(`token-merchant: failed to start: ${(error as Error).message}\n`)
  process.exit(1)
})
