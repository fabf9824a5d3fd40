import { spawn } from 'node:child_process'
import t from 'tap'
import { PROJECT_ROOT } from '../../project.js'

// `npm start` checks the configuration before it builds (issue #55 item 12: `PORT=abc` was refused
// after a 13 s build, with nothing printed meanwhile).
t.test('npm start refuses a bad setting before the build, in the service\'s words', async t => {
  const child = spawn('npm', ['start'], { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: 'abc' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const code = await new Promise<number | null>(resolve => child.on('close', resolve))
  t.equal(code, 1)
  t.match(output, /token-merchant: invalid configuration:\n {2}PORT: "abc" is not a whole number from 0 to 65535/)
  t.notMatch(output, /build:paywall|tsc -p/, 'nothing was built')
})
