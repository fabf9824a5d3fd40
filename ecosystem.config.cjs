// PM2: `npm run build && pm2 start /path/to/ecosystem.config.cjs` (from any directory);
// `pm2 reload /path/to/ecosystem.config.cjs` (or `npm run reload`) for zero-downtime restarts;
// README, "Running in production".
//
// `pm2 start|reload|restart` with this file first runs `token-merchant check-config` (the built
// dist/client/cli.js) on .env and the environment: with a problem, PM2 stops there and the running
// workers keep serving. It checks the environment of the shell running pm2, which is what the
// workers get with --update-env. `pm2 reload token-merchant` (by name) does not read this file, so
// it cannot check.
//
// Configuration comes from .env in this directory and the environment, as with `npm start`: the
// service reads .env itself at every start, so a changed .env applies at the next reload. PM2
// keeps the environment of the shell that first started the app; `pm2 reload ecosystem.config.cjs
// --update-env` takes the current one instead.
//
// Read here, by PM2 only: PM2_INSTANCES (workers, default max: one per core) and
// PM2_KILL_TIMEOUT_MS (default 80000). The service refuses to start when kill_timeout does not
// exceed its close grace plus 3 s (the grace is derived from the timeouts: 71 s on the defaults).
const { execFileSync } = require('node:child_process')
const { existsSync } = require('node:fs')
const { join } = require('node:path')

const instances = process.env.PM2_INSTANCES ?? 'max'
const killTimeoutMs = Number(process.env.PM2_KILL_TIMEOUT_MS ?? 80000)

const CHECKED_ACTIONS = new Set(['start', 'reload', 'restart', 'startOrReload', 'startOrRestart', 'startOrGracefulReload'])
const action = process.argv.slice(2).find(arg => !arg.startsWith('-'))
if (CHECKED_ACTIONS.has(action)) checkConfiguration()

/** Throws (PM2 prints it and exits 1, changing nothing) when the service would not start with this configuration. */
function checkConfiguration () {
  const cli = join(__dirname, 'dist', 'client', 'cli.js')
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`)
  let output
  try {
    output = execFileSync(process.execPath, [cli, 'check-config', '--json'], {
      cwd: __dirname,
      env: { ...process.env, PM2_KILL_TIMEOUT_MS: String(killTimeoutMs) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60000
    })
  } catch (error) {
    output = error.stdout
    let problems
    try {
      problems = JSON.parse(output).result.checks.filter(check => check.outcome === 'problem').map(check => check.detail)
    } catch {
      problems = [String(error.stderr || error.message).trim()]
    }
    throw new Error(`token-merchant check-config found problems; nothing was started or reloaded:\n  ${problems.join('\n  ')}`)
  }
  for (const check of JSON.parse(output).result.checks) {
    if (check.outcome === 'warning') console.error(`token-merchant check-config: warning: ${check.detail}`)
  }
}

module.exports = {
  apps: [{
    name: 'token-merchant',
    // Paths below resolve against the file's own folder, wherever pm2 is run from.
    cwd: __dirname,
    script: './dist/server.js',
    exec_mode: 'cluster',
    instances: /^\d+$/.test(instances) ? Number(instances) : instances,
    // server.ts sends 'ready' after listen; PM2 waits for it before routing traffic to a worker.
    wait_ready: true,
    listen_timeout: 15000,
    // Above the close grace: PM2 sends SIGKILL when it runs out.
    kill_timeout: killTimeoutMs,
    // Pino writes NDJSON on stdout; no PM2 time prefix or JSON re-wrapping, which would break it.
    merge_logs: true,
    out_file: './logs/out.log',
    error_file: './logs/err.log',
    env: {
      NODE_ENV: 'production'
    }
  }]
}
