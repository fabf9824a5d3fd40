// PM2: `npm run build && pm2 start /path/to/ecosystem.config.cjs` (from any directory);
// `pm2 reload token-merchant` for zero-downtime restarts; README, "Running in production".
//
// Configuration comes from .env in this directory and the environment, as with `npm start`: the
// service reads .env itself at every start, so a changed .env applies at the next reload. PM2
// keeps the environment of the shell that first started the app; `pm2 reload ecosystem.config.cjs
// --update-env` takes the current one instead.
//
// Read here, by PM2 only: PM2_INSTANCES (workers, default max: one per core) and
// PM2_KILL_TIMEOUT_MS (default 80000). The service refuses to start when kill_timeout does not
// exceed its close grace plus 3 s (the grace is derived from the timeouts: 71 s on the defaults).
const instances = process.env.PM2_INSTANCES ?? 'max'

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
    kill_timeout: Number(process.env.PM2_KILL_TIMEOUT_MS ?? 80000),
    // Pino writes NDJSON on stdout; no PM2 time prefix or JSON re-wrapping, which would break it.
    merge_logs: true,
    out_file: './logs/out.log',
    error_file: './logs/err.log',
    env: {
      NODE_ENV: 'production'
    }
  }]
}
