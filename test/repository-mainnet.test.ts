// The real mainnet bytes stay outside the repository: their tests run only as `npm run
// test:mainnet -- <folder>`, which refuses a missing folder before any test runs, and the default
// `npm test` (tap's include in .taprc) never picks them up.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { PROJECT_ROOT } from '../project.js'
import { folderProblem, REQUIRED } from '../scripts/test-mainnet.js'
import { testFolder } from './fixtures/test-folder.js'

t.test('npm run test:mainnet stops with a clear message when the folder is missing or incomplete', async t => {
  const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test-mainnet.ts', ...args], { cwd: PROJECT_ROOT, encoding: 'utf8' })
  const none = run([])
  t.equal(none.status, 2)
  t.match(none.stderr, /usage: npm run test:mainnet -- <fixtures folder>/)
  const dir = testFolder(t)
  const absent = run([join(dir, 'nowhere')])
  t.equal(absent.status, 2)
  t.match(absent.stderr, /the fixtures folder .*nowhere does not exist/)
  mkdirSync(join(dir, 'mainnet-accounts'))
  t.equal(folderProblem(dir), `test:mainnet: ${dir} lacks mainnet-pools/accounts/, mainnet-pools/transactions/`)
  for (const part of REQUIRED) mkdirSync(join(dir, part), { recursive: true })
  t.equal(folderProblem(dir), null, 'every subfolder the tests read is there')
})

t.test('the default run does not pick up the mainnet tests, and no mainnet account is tracked', async t => {
  const taprc = readFileSync(join(PROJECT_ROOT, '.taprc'), 'utf8')
  const include = [...taprc.slice(taprc.indexOf('include:')).matchAll(/^\s+- (\S+)$/gm)].map(match => match[1])
  t.same(include, ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'])
  t.notOk('tap' in JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')), 'no "tap" config in package.json widens it')
  const tracked = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n')
  t.same(tracked.filter(file => file.endsWith('.mainnet.ts') && !file.startsWith('test/mainnet/')), [], 'mainnet tests live in test/mainnet/')
  t.same(tracked.filter(file => file.startsWith('test/fixtures/mainnet-')), [], 'no captured mainnet account in the repository')
})
