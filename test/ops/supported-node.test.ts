// The start-up check of the Node version: judged on version strings, then as processes (the
// server and the CLI, which also runs the MCP bridge) with `process.version` made older by a
// preload, so that no old Node has to be installed.
import { testFolder } from '../fixtures/test-folder.js'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { MINIMUM_NODE, nodeVersionProblem } from '../../lib/ops/supported-node.js'
import { PROJECT_ROOT } from '../../project.js'

const LOADER = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href

t.test('the minimum is package.json\'s engines.node', async t => {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
  t.equal(pkg.engines.node, `>=${MINIMUM_NODE.replace(/\.0$/, '')}`)
})

t.test('versions at or above the minimum pass, older ones get one sentence', async t => {
  for (const version of ['v22.12.0', 'v22.19.1', 'v23.0.0', 'v24.21.0', 'v30.1.2']) t.equal(nodeVersionProblem(version), undefined, version)
  for (const version of ['v22.11.9', 'v20.19.5', 'v18.20.8', 'v8.99.999', 'nonsense']) {
    t.match(nodeVersionProblem(version), new RegExp(`^Node\\.js 22\\.12\\.0 or later is required; this is ${version} \\(.*\\)\\. Install Node 24 LTS or 22`), version)
  }
  t.equal(nodeVersionProblem('v22.11.0', '22.11.0'), undefined, 'the minimum itself passes')
})

t.test('as processes: an older Node stops the server and the CLI before anything else loads', async t => {
  const dir = testFolder(t, { 'old-node.mjs': "Object.defineProperty(process, 'version', { value: 'v20.19.5' })\n" })
  const run = async (entry: string, args: string[]) => await new Promise<{ code: number, stdout: string, stderr: string }>(resolve => {
    execFile(process.execPath, ['--import', join(dir, 'old-node.mjs'), '--import', LOADER, join(PROJECT_ROOT, entry), ...args],
      { cwd: dir, env: { PATH: process.env.PATH, PORT: '0' }, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
      })
  })
  const expected = /^token-merchant: Node\.js 22\.12\.0 or later is required; this is v20\.19\.5 \(.*\)\. Install Node 24 LTS or 22 \(see docs\/development\.md#node\)\.\n$/
  for (const [entry, args] of [['server.ts', []], ['client/cli.ts', ['--version']], ['client/cli.ts', ['mcp', '--dry-run']]] as const) {
    const { code, stdout, stderr } = await run(entry, [...args])
    t.equal(code, 1, `${entry} ${args.join(' ')}`)
    t.match(stderr, expected, 'one sentence, nothing else')
    t.equal(stdout, '')
  }
  t.notOk(existsSync(join(dir, 'data')), 'the server created no keypair and no database')
})
