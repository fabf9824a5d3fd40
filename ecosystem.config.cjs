// PM2: `npm run build && pm2 start ecosystem.config.cjs`; `pm2 reload token-merchant` for zero-downtime restarts.
// Every worker shares one SQLite file (WAL, busy_timeout); migrations run once under the write lock.
module.exports = {
  apps: [{
    name: 'token-merchant',
    script: './dist/server.js',
    exec_mode: 'cluster',
    instances: 'max',
    // server.ts sends 'ready' after listen; PM2 waits for it before routing traffic to a worker.
    wait_ready: true,
    listen_timeout: 15000,
    // Longer than CLOSE_GRACE_MS, so in-flight requests finish before PM2 resorts to SIGKILL.
    kill_timeout: 5000,
    // Pino writes NDJSON on stdout; no PM2 time prefix or JSON re-wrapping, which would break it.
    merge_logs: true,
    out_file: './logs/out.log',
    error_file: './logs/err.log',
    env: {
      NODE_ENV: 'production',
      PORT: 3000,
      LOG_LEVEL: 'info',
      CLOSE_GRACE_MS: 3000
    }
  }]
}
