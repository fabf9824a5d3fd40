import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { createKeyPairSignerFromBytes, type Address } from '@solana/kit'
import t, { type Test } from 'tap'
import { generateKeypairBytes, writeKeypairFile } from '../../lib/solana/keypair-file.js'
import { PROJECT_ROOT } from '../../project.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { build } from '../helper.js'
import { testFolder } from '../fixtures/test-folder.js'

// The bridge driven as an MCP host drives it: the SDK's client spawns `token-merchant mcp` over
// stdio; the bridge buys from a real merchant on the local chain.
const LOADER = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href
const CLI = join(PROJECT_ROOT, 'client', 'cli.ts')

const m = await startX402Merchant(t)
const today = () => new Date().toISOString().slice(0, 10)

/** A buyer's keypair file holding `tokens` (no SOL: the merchant's fee payer sends the transfer). */
async function buyerFile (t: Test, tokens: bigint): Promise<{ path: string, address: Address }> {
  const path = join(testFolder(t), 'buyer.json')
  const bytes = generateKeypairBytes()
  writeKeypairFile(path, bytes)
  const { address } = await createKeyPairSignerFromBytes(bytes)
  await m.paid.chain.mintTo(m.paid.mint, address, tokens)
  return { path, address }
}

/** The bridge as a host starts it: one command, its settings as flags or TOKEN_MERCHANT_MCP_* variables. */
async function startBridge (t: Test, flags: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', LOADER, CLI, 'mcp', ...flags],
    env: { PATH: process.env.PATH ?? '', HOME: t.testdirName, ...env },
    cwd: PROJECT_ROOT,
    stderr: 'pipe'
  })
  let log = ''
  transport.stderr?.on('data', (chunk: Buffer) => { log += chunk.toString() })
  const client = new Client({ name: 'host', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  return { client, log: () => log }
}

const text = (result: CallToolResult) => result.content.map(item => item.type === 'text' ? item.text : '').join('\n')

t.test('tools listed with their prices and the buyer\'s limits; free tools pass through; the analysis bought', async t => {
  const buyer = await buyerFile(t, 100_000n)
  const { client, log } = await startBridge(t, ['--merchant', m.url, '--keypair', buyer.path, '--rpc', m.paid.chain.url, '--max-price', '100000', '--budget', '1000000', '--ledger', join(t.testdirName, 'ledger.json')])
  const { tools } = await client.listTools()
  const byName = new Map(tools.map(tool => [tool.name, tool.description ?? '']))
  t.same([...byName.keys()], ['fetch_price', 'analyze_token', 'get_manifest', 'get_reputation', 'list_registry'])
  t.match(byName.get('fetch_price'), /Price: 0\.05 USDC \(50000 base units\) per call\. Paid automatically up to your limits \(at most 0\.1 USDC \(100000 base units\) per call, 1 USDC \(1000000 base units\) per day\)\.$/)
  t.match(byName.get('analyze_token'), /Price: 0\.1 USDC \(100000 base units\) per call/)
  for (const name of ['fetch_price', 'analyze_token']) t.notMatch(byName.get(name), /Costs |x402 MCP client pays/, `${name}: the price once, in the bridge's words`)
  t.notMatch(byName.get('get_manifest'), /Paid automatically/)
  const manifest = await client.callTool({ name: 'get_manifest', arguments: {} }) as CallToolResult
  t.match(manifest, { structuredContent: { payment_address: m.paid.merchant.address } })
  await t.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), { code: -32602, message: /Unknown tool "no_such_tool"/ })
  t.match(log(), /token-merchant mcp: token-merchant at http:\/\/127\.0\.0\.1:\d+\/mcp; buyer /, 'logs on stderr')

  const before = await m.merchantBalance()
  const analysis = await client.callTool({ name: 'analyze_token', arguments: { address: m.paid.mint } }) as CallToolResult
  t.notOk(analysis.isError, text(analysis))
  t.match(analysis.structuredContent, { mint: m.paid.mint, risk_score: Number })
  t.match(text(analysis), /Paid 0\.1 USDC \(100000 base units\); transaction /)
  t.equal(await m.merchantBalance() - before, 100_000n)
  t.equal(await m.tokenBalance(buyer.address), 0n)
})

t.test('paid calls within the limits pay once each; beyond them nothing is paid, and the day\'s budget survives a restart', async t => {
  const buyer = await buyerFile(t, 1_000_000n)
  const ledger = join(t.testdirName, 'ledger.json')
  const flags = ['--merchant', m.url, '--keypair', buyer.path, '--rpc', m.paid.chain.url, '--max-price', '60000', '--budget', '100000', '--ledger', ledger]
  const first = await startBridge(t, flags)
  const before = { merchant: await m.merchantBalance(), buyer: await m.tokenBalance(buyer.address) }

  const tooDear = await first.client.callTool({ name: 'analyze_token', arguments: { address: m.paid.mint } }) as CallToolResult
  t.equal(tooDear.isError, true)
  t.match(text(tooDear), /^SPENDING_LIMIT: analyze_token costs 0\.1 USDC \(100000 base units\), above the per-call limit of 0\.06 USDC \(60000 base units\) \(--max-price\); nothing was paid\.$/)

  const bought = await first.client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
  t.notOk(bought.isError, text(bought))
  t.match(bought.structuredContent, { data: { mintSymbol: 'SOL' } })
  const receipt = bought._meta?.['x402/payment-response'] as { transaction: string }
  t.match(bought.content.at(-1), { type: 'text', text: `Paid 0.05 USDC (50000 base units); transaction ${receipt.transaction}` }, 'a short receipt line; no explorer link: devnet\'s name, but a local chain')
  t.equal(await m.merchantBalance() - before.merchant, 50_000n, 'paid once, on chain')
  t.equal(before.buyer - await m.tokenBalance(buyer.address), 50_000n)

  t.notOk((await first.client.callTool({ name: 'fetch_price', arguments: { token: 'JUP' } }) as CallToolResult).isError, 'the second call fills the budget')
  const overBudget = await first.client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
  t.equal(overBudget.isError, true)
  t.match(text(overBudget), /^DAILY_BUDGET: fetch_price costs 0\.05 USDC \(50000 base units\); with 0\.1 USDC \(100000 base units\) spent today \(UTC\) that passes the daily budget of 0\.1 USDC \(100000 base units\) \(--budget\); nothing was paid\.$/)
  t.equal(await m.merchantBalance() - before.merchant, 100_000n, 'two payments, no third')
  const kept = JSON.parse(readFileSync(ledger, 'utf8'))
  t.match(kept, { version: 1, spent: { [today()]: '100000' }, payments: [{ tool: 'fetch_price', amount: '50000', transaction: receipt.transaction }, { tool: 'fetch_price', amount: '50000' }] })
  await first.client.close()

  const again = await startBridge(t, flags)
  const refused = await again.client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
  t.match(text(refused), /^DAILY_BUDGET: /, 'the budget is read back from the ledger')
  t.equal(await m.merchantBalance() - before.merchant, 100_000n, 'still nothing more paid')
  t.match(again.log(), /spent today 100000/)
})

t.test('dry run (settings from the environment, no keypair): priced, nothing paid, nothing held', async t => {
  const buyer = await buyerFile(t, 1_000_000n)
  const ledger = join(t.testdirName, 'ledger.json')
  const { client, log } = await startBridge(t, [], {
    TOKEN_MERCHANT_MCP_MERCHANT: m.url,
    TOKEN_MERCHANT_MCP_RPC: m.paid.chain.url,
    TOKEN_MERCHANT_MCP_LEDGER: ledger,
    TOKEN_MERCHANT_MCP_DRY_RUN: 'true'
  })
  const before = await m.tokenBalance(buyer.address)
  t.match((await client.listTools()).tools[0].description, /Dry run: calls are priced, never paid\.$/)
  const priced = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
  t.equal(priced.isError, true)
  t.match(text(priced), new RegExp(`^DRY_RUN: fetch_price would cost 0\\.05 USDC \\(50000 base units\\), paid to ${m.paid.merchant.address} on solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1; within your limits .*Nothing was paid`))
  t.equal(await m.tokenBalance(buyer.address), before)
  t.notOk(existsSync(ledger), 'nothing held in the ledger')
  t.match(log(), /; no wallet; dry run \(nothing is paid\)/)
})

t.test('a merchant refusal becomes a clear tool error; the budget hold is given back', async t => {
  const buyer = await buyerFile(t, 10n) // far less than the price: the merchant's verification refuses it
  const ledger = join(t.testdirName, 'ledger.json')
  const { client } = await startBridge(t, ['--merchant', m.url, '--keypair', buyer.path, '--rpc', m.paid.chain.url, '--budget', '1000000', '--ledger', ledger])
  const before = await m.merchantBalance()
  const refused = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
  t.equal(refused.isError, true)
  t.match(text(refused), /^PAYMENT_REFUSED: the merchant refused the payment for fetch_price: [A-Z0-9_]+: .+; nothing was charged\.$/)
  t.equal(await m.merchantBalance(), before)
  t.equal(await m.tokenBalance(buyer.address), 10n)
  t.match(JSON.parse(readFileSync(ledger, 'utf8')), { spent: { [today()]: '0' }, payments: [] })
})

t.test('given an MCP URL (any x402 MCP server, no manifest): it pays what the tool asks; a merchant gone is a tool error', async t => {
  const buyer = await buyerFile(t, 1_000_000n)
  const { client } = await startBridge(t, ['--merchant', `${m.url}/mcp`, '--keypair', buyer.path, '--rpc', m.paid.chain.url, '--ledger', join(t.testdirName, 'ledger.json')])
  const fetchPrice = (await client.listTools()).tools.find(tool => tool.name === 'fetch_price')
  t.match(fetchPrice?.description, /Paid automatically\.$/)
  t.notMatch(fetchPrice?.description, /Price: /, 'no manifest, no price table')
  const before = await m.merchantBalance()
  const bought = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
  t.notOk(bought.isError, text(bought))
  t.match(text(bought), /Paid 50000 base units; transaction /)
  t.equal(await m.merchantBalance() - before, 50_000n)
})

t.test('a merchant gone after the bridge started: a tool error, nothing paid', async t => {
  // Outside testFolder(t), which build() claims for the merchant's database.
  const dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeKeypairFile(join(dir, 'buyer.json'))
  const gone = await build(t)
  const goneUrl = await gone.listen({ port: 0, host: '127.0.0.1' })
  const orphan = await startBridge(t, ['--merchant', `${goneUrl}/mcp`, '--keypair', join(dir, 'buyer.json'), '--ledger', join(dir, 'ledger.json')])
  await gone.close()
  const unreachable = await orphan.client.callTool({ name: 'get_manifest', arguments: {} }) as CallToolResult
  t.equal(unreachable.isError, true)
  t.match(text(unreachable), /^MERCHANT_UNREACHABLE: get_manifest got no answer from the merchant .*; nothing was paid\.$/)
})

t.test('usage errors name the flag and its variable, on stderr', async t => {
  const { run } = await import('../../client/cli/run.js')
  let stdout = ''
  let stderr = ''
  const code = await run(['mcp', '--keypair', 'x.json', '--json'], { stdout: text => { stdout += text }, stderr: text => { stderr += text } })
  t.equal(code, 1)
  t.equal(stdout, '', 'stdout is the protocol: nothing else is written there')
  t.match(stderr, /mcp needs --merchant \(or TOKEN_MERCHANT_MCP_MERCHANT\)/)
})
