// The official MCP Inspector in CLI mode (a dev dependency; 2.x needs Node 22.19+) against our MCP
// server, as README's "MCP hosts" shows it: over HTTP (POST /mcp) and through the stdio bridge
// (`token-merchant mcp`, a dry run: no wallet). It lists the tools and calls a free one. The bridge
// runs from source (tsx), slow to start on a loaded machine: hence the long connect timeout.
import { testFolder } from '../fixtures/test-folder.js'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { CATALOGUE } from '../../lib/catalogue/catalogue.js'
import { toolsOf } from '../../lib/tools/tool-catalog.js'
import { PROJECT_ROOT } from '../../project.js'
import { build } from '../helper.js'

const INSPECTOR = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js')
const LOADER = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href
const CLI = join(PROJECT_ROOT, 'client', 'cli.ts')

const app = await build(t)
const url = await app.listen({ port: 0, host: '127.0.0.1' })
const home = testFolder(t)

/** `npx @modelcontextprotocol/inspector --cli …`; its catalog file kept in a folder of the test's. */
async function run (args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  return await new Promise(resolve => {
    execFile(process.execPath, [INSPECTOR, '--cli', '--connect-timeout', '90000', ...args], { env: { PATH: process.env.PATH, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
    })
  })
}

/** Its JSON result, when it succeeded. */
async function inspector (args: string[]): Promise<Record<string, any>> {
  const { code, stdout, stderr } = await run(args)
  if (code !== 0) throw new Error(`inspector ${args.join(' ')} exited ${code}: ${stdout}\n${stderr}`)
  return JSON.parse(stdout)
}

const toolNames = (listing: Record<string, any>) => (listing.tools as Array<{ name: string }>).map(tool => tool.name).sort()
const catalogue = Object.keys(toolsOf(CATALOGUE)).sort()

t.test('over HTTP: tools/list lists every tool of the catalogue; tools/call runs a free one', async t => {
  const listing = await inspector([`${url}/mcp`, '--transport', 'http', '--method', 'tools/list'])
  t.same(toolNames(listing), catalogue)
  const called = await inspector([`${url}/mcp`, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'get_manifest'])
  t.notOk(called.isError)
  t.match(called.structuredContent, { name: 'token-merchant', mcp_url: `${url}/mcp`, services: [{ mcp_tool: 'fetch_price' }, { mcp_tool: 'analyze_token' }] })
})

t.test('through the bridge on stdio (token-merchant mcp --dry-run): the same tools, priced; a free one called, a paid one priced', async t => {
  const bridge = [process.execPath, '--import', LOADER, CLI, 'mcp', '--merchant', url, '--dry-run', '--ledger', join(home, 'ledger.json')]
  const listing = await inspector([...bridge, '--method', 'tools/list'])
  t.same(toolNames(listing), catalogue)
  t.match(listing.tools.find((tool: { name: string }) => tool.name === 'fetch_price').description, /Dry run: calls are priced, never paid\.$/)
  const called = await inspector([...bridge, '--method', 'tools/call', '--tool-name', 'get_manifest'])
  t.notOk(called.isError)
  t.match(called.structuredContent, { name: 'token-merchant', mcp_url: `${url}/mcp` })
  // The Inspector prints the result and exits non-zero on a tool error (isError: true).
  const priced = await run([...bridge, '--method', 'tools/call', '--tool-name', 'fetch_price', '--tool-arg', 'token=SOL'])
  t.not(priced.code, 0)
  t.match(priced.stderr, /"code":"tool_is_error"/)
  const result = JSON.parse(priced.stdout) as { isError: boolean, content: Array<{ text: string }> }
  t.equal(result.isError, true)
  t.match(result.content[0].text, /^DRY_RUN: fetch_price would cost 0\.05 USDC \(50000 base units\), paid to \w+ on solana:localnet; .*Nothing was paid/)
})
