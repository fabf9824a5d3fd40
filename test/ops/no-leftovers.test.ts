// A test process that dies (tap's timeout, Ctrl-C, an uncaught error) takes the embedded
// PostgreSQL server it started with it: the fixture stops it by its pid file and removes its
// folder (test/fixtures/stop-on-exit.ts). Driven as real processes: a script starts the server,
// then is killed or throws. The script holds its ending until the test has seen the server
// running (it closes the script's stdin): without that hold, an ending that stops the server
// itself could stop it before the test looks.
import { testFolder } from '../fixtures/test-folder.js'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { constants } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { PROJECT_ROOT } from '../../project.js'
import { isRunning, killOnExit } from '../fixtures/stop-on-exit.js'

const LOADER = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href
const FIXTURE = pathToFileURL(join(PROJECT_ROOT, 'test', 'fixtures', 'embedded-postgres.ts')).href

/** A process that starts an embedded server, prints its folder and PostgreSQL's pid, then runs `ending` once the test has seen it running. */
async function serverThenEnd (t: Test, ending: string) {
  const script = join(testFolder(t, {
    'end.mts': `import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startEmbeddedPostgres } from ${JSON.stringify(FIXTURE)}
const server = await startEmbeddedPostgres({ durable: false })
const pid = Number(readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\\n')[0])
console.log(JSON.stringify({ dir: server.dir, pid }))
for await (const _ of process.stdin) {} // until the test closes it
${ending}
`
  }), 'end.mts')
  const child = spawn(process.execPath, ['--import', LOADER, script], { stdio: ['pipe', 'pipe', 'pipe'] })
  killOnExit(child)
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>
  const line = once(createInterface({ input: child.stdout }), 'line') as Promise<[string]>
  const first = await Promise.race([line, exited.then(([code, signal]) => {
    throw new Error(`the script ended before starting PostgreSQL (code ${code}, signal ${signal})`)
  })])
  const started = JSON.parse(first[0]) as { dir: string, pid: number }
  t.ok(isRunning(started.pid), 'PostgreSQL runs')
  return { child, exited, ...started, end: () => { child.stdin.end() } }
}

async function gone (pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && isRunning(pid); i++) await sleep(50)
  return !isRunning(pid)
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`killed with ${signal} (tap's timeout, Ctrl-C): PostgreSQL stops, its folder goes, the process still dies of the signal`, async t => {
    const run = await serverThenEnd(t, 'setInterval(() => {}, 1000)')
    run.child.kill(signal)
    const [code, died] = await run.exited
    // Of the signal itself, or exit code 128 + its number (tsx's loader, as a shell reports it).
    t.ok(died === signal || code === 128 + constants.signals[signal], `ended by ${signal} (code ${code}, signal ${died})`)
    t.ok(await gone(run.pid), 'no PostgreSQL left')
    t.notOk(existsSync(run.dir), 'its folder removed')
  })
}

t.test('an uncaught error: the same', async t => {
  const run = await serverThenEnd(t, "setTimeout(() => { throw new Error('a test crashed') }, 10)")
  run.end()
  const [code] = await run.exited
  t.equal(code, 1)
  t.ok(await gone(run.pid), 'no PostgreSQL left')
  t.notOk(existsSync(run.dir), 'its folder removed')
})

t.test('stopped normally (remove()), nothing is left either, and the exit handler finds nothing to do', async t => {
  const run = await serverThenEnd(t, "await server.remove()\nconsole.log('removed')")
  run.end()
  const [code] = await run.exited
  t.equal(code, 0)
  t.ok(await gone(run.pid))
  t.notOk(existsSync(run.dir))
})
