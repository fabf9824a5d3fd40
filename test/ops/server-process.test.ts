import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, renameSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { killOnExit } from '../fixtures/stop-on-exit.js'
import { SERVER_NODE_ARGS, spawnServer } from '../fixtures/server-process.js'
import { testEnv } from '../helper.js'

type LogLine = { msg: string, reqId?: string, req?: { url: string } }

// Only whole lines: the file is written asynchronously, so its end may be a line still being written.
const linesOf = (text: string): LogLine[] => text.split('\n').slice(0, -1).map(line => JSON.parse(line) as LogLine)

async function waitFor<T> (probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = probe()
    if (value !== undefined) return value
    await sleep(50)
  }
  throw new Error(`timed out waiting for ${what}`)
}

t.test('LOG_FILE: pino writes the file, reopens it on SIGUSR2 after rotation, and flushes the last line at exit', async (t) => {
  const env = testEnv(t, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' })
  const logFile = join(env.DATABASE_PATH, '..', 'logs', 'merchant.log')
  const run = spawnServer({ ...env, LOG_FILE: logFile })
  t.teardown(() => { run.child.kill('SIGKILL') })
  const fileLines = () => existsSync(logFile) ? linesOf(readFileSync(logFile, 'utf8')) : []
  const url = await waitFor(() => {
    const listening = fileLines().find(line => line.msg.startsWith('Server listening at '))
    return fileLines().some(line => line.msg === 'token-merchant ready') ? listening?.msg.slice('Server listening at '.length) : undefined
  }, 'the server to start')
  t.equal(run.output().stdout, '', 'nothing on stdout')
  t.equal(statSync(logFile).mode & 0o777, 0o640, 'the log file is not world-readable')

  await (await fetch(`${url}/health/live?before=rotation`)).text()
  await waitFor(() => fileLines().some(line => line.req?.url === '/health/live?before=rotation') || undefined, 'the first request line')
  renameSync(logFile, `${logFile}.1`) // what logrotate does, before its postrotate `kill -USR2`
  run.child.kill('SIGUSR2')
  await waitFor(() => existsSync(logFile) || undefined, 'a new log file')
  await (await fetch(`${url}/health/live?after=rotation`)).text()
  await waitFor(() => fileLines().some(line => line.req?.url === '/health/live?after=rotation') || undefined, 'the second request line')
  t.notOk(fileLines().some(line => line.msg.startsWith('shutting down')), 'SIGUSR2 does not stop the service')

  run.child.kill('SIGTERM')
  const [code, signal] = await run.exited
  t.equal(code, 0, `exit code 0 (${String(signal)}; stderr: ${run.output().stderr})`)
  const rotated = linesOf(readFileSync(`${logFile}.1`, 'utf8'))
  const current = fileLines()
  t.ok(rotated.some(line => line.req?.url === '/health/live?before=rotation'), 'the rotated file holds the lines before SIGUSR2')
  t.ok(current.some(line => line.req?.url === '/health/live?after=rotation'), 'the new file the lines after')
  t.equal(current.at(-1)?.msg, 'stopped', 'the last line is written before the process ends')
})

t.test('PM2\'s shutdown message drains and exits 0 like a signal', async (t) => {
  const env = testEnv(t, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' })
  const child = spawn(process.execPath, SERVER_NODE_ARGS, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  t.teardown(() => { child.kill('SIGKILL') })
  killOnExit(child)
  let stdout = ''
  child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  const [message] = await once(child, 'message') as [unknown]
  t.equal(message, 'ready', 'PM2 wait_ready gets its message after listen')
  child.send('shutdown')
  const [code] = await once(child, 'exit') as [number]
  t.equal(code, 0)
  const lines = linesOf(stdout)
  t.match(lines.find(line => line.msg === 'shutting down: finishing in-flight requests'), { signal: 'shutdown message' })
  t.equal(lines.at(-1)?.msg, 'stopped')
})

t.test('under PM2, a kill_timeout shorter than the grace stops the start', async (t) => {
  const run = spawnServer({ ...testEnv(t), pm_id: '0', kill_timeout: '5000' })
  const [code] = await run.exited
  t.equal(code, 1)
  t.match(run.output().stderr, /token-merchant: PM2 kill_timeout \(5000 ms\) must be longer than the close grace and the steps after it \(74000 ms\)/)
})
