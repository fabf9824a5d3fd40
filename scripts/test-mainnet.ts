// `npm run test:mainnet -- <fixtures folder>`: the tests of real mainnet bytes (test/mainnet/*.mainnet.ts).
// The bytes stay outside the repository (only .ci/run names where they are), so the folder is an
// argument; without it, or without the subfolders the tests read, this stops before any test runs.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TESTS = join(ROOT, 'test', 'mainnet')
/** What the tests read inside the folder. */
export const REQUIRED = ['mainnet-accounts', join('mainnet-pools', 'accounts'), join('mainnet-pools', 'transactions')]

/** The reason the folder cannot be used, or null. */
export function folderProblem (folder: string | undefined): string | null {
  if (folder === undefined || folder === '') return 'usage: npm run test:mainnet -- <fixtures folder> (the folder holding mainnet-accounts/ and mainnet-pools/)'
  const absolute = resolve(folder)
  if (!existsSync(absolute) || !statSync(absolute).isDirectory()) return `test:mainnet: the fixtures folder ${absolute} does not exist`
  const missing = REQUIRED.filter(part => !existsSync(join(absolute, part)))
  if (missing.length > 0) return `test:mainnet: ${absolute} lacks ${missing.map(part => `${part}/`).join(', ')}`
  return null
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2]
  const problem = folderProblem(folder)
  if (problem !== null) {
    console.error(problem)
    process.exit(2)
  }
  const files = readdirSync(TESTS).filter(name => name.endsWith('.mainnet.ts')).sort().map(name => join('test', 'mainnet', name))
  const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'tap'), ['--disable-coverage', ...files], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MAINNET_FIXTURES: resolve(folder!) }
  })
  process.exit(run.status ?? 1)
}
