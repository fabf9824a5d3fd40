// `npm run demo`: the whole buyer flow offline, printed step by step. Exit 0 when every step worked.
import { runDemo } from './demo.js'

const interrupted = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the demo's processes\n`)
    interrupted.abort()
  })
}

try {
  await runDemo({ log: line => { process.stdout.write(`${line}\n`) }, signal: interrupted.signal })
  process.exitCode = 0
} catch (error) {
  if (interrupted.signal.aborted) {
    process.stderr.write('demo interrupted; everything it started was stopped\n')
    process.exitCode = 130
  } else {
    process.stderr.write(`\ndemo failed: ${(error as Error).message}\n`)
    process.exitCode = 1
  }
}
