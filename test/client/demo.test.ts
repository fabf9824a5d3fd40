import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { runDemo } from '../../demo/demo.js'
import { PROJECT_ROOT } from '../../project.js'
import { isRunning, killOnExit } from '../fixtures/stop-on-exit.js'

const SIGNATURE = /signature ([1-9A-HJ-NP-Za-km-z]{64,88})/g

t.test('runDemo: the whole flow on real processes over real HTTP, in the specification\'s order', async t => {
  const lines: string[] = []
  const summary = await runDemo({ log: line => lines.push(line) })
  const output = lines.join('\n')

  t.match(output, /prices come from this local Jupiter stand-in, not the live market/)
  t.match(output, /payment mint\s+4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU \(USDC, 6 decimals, at the devnet USDC address\)/)
  const order = ['Register the merchant', 'Discover: GET /registry', 'Read the manifest', 'Check the reputation',
    '← 402 Payment Required: 0.05 USDC', '✓ flow: standard x402', '→ GET again with PAYMENT-SIGNATURE', '✓ 200 delivered',
    'settled by the merchant', 'buyer SOL spent on fees: 0 lamports',
    '← 402 Payment Required: 0.1 USDC', '✓ flow: pay-then-prove', '→ paid 0.1 USDC', '→ GET again with x-payment-signature',
    'Buy fetch-price through MCP', 'tools: fetch_price, analyze_token',
    '→ tools/call fetch_price {"token":"JUP"} (no payment)', '← PaymentRequired: 0.05 USDC', '✓ transfer signed by',
    'with the payment in _meta["x402/payment"]', '✓ delivered; settled: transaction', 'Reputation after the purchases']
  const positions = order.map(text => output.indexOf(text))
  t.same(order.filter((_, i) => positions[i] === -1), [], 'every step is printed')
  t.same(positions, [...positions].sort((a, b) => a - b), 'in order')

  t.match(summary.purchases, [
    { service: 'fetch-price', via: 'http', amountPaid: 50_000n, data: { data: { mintSymbol: 'SOL', vsTokenSymbol: 'USDC' } } },
    { service: 'analyze-token', via: 'http', amountPaid: 100_000n, data: { risk_score: Number } },
    { service: 'fetch-price', via: 'mcp', amountPaid: 50_000n, data: { data: { mintSymbol: 'JUP', vsTokenSymbol: 'USDC' } } }
  ])
  for (const purchase of summary.purchases) t.ok(output.includes(`signature ${purchase.signature}`), `${purchase.service}'s signature is printed`)
  t.ok(output.includes(summary.registration), 'the registration signature is printed')
  t.equal(summary.merchantBalance, 200_000n, 'the merchant received the three prices on chain')
  t.match(summary.reputationBefore, { transactions: 0, deliveries: 0 })
  t.match(summary.reputationAfter, { transactions: 3, deliveries: 3, success_rate: 1, unique_payers: 1, revenue: { base_units: '200000', token_units: '0.2' } })
  t.match(output, /success rate\s+100\.0% \(3 delivered of 3 verified payments/)

  await t.rejects(fetch(`${summary.merchantUrl}/health`), 'the merchant process is gone')
})

t.test('npm run demo (demo/run-demo.ts) exits 0 and leaves no process behind', async t => {
  const loader = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href
  // Its own process group: if this test dies first, the demo and what it started (chain, prices, merchant) go with it.
  const child = spawn(process.execPath, ['--import', loader, join(PROJECT_ROOT, 'demo', 'run-demo.ts')], { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  killOnExit(child, { group: true })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL') })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const [code] = await once(child, 'exit') as [number | null]
  t.equal(code, 0, `exit code 0 (stderr: ${stderr})`)
  t.equal(stderr, '', 'nothing on stderr')
  t.match(stdout, /Every step worked\. Prices came from the local stand-in/)
  t.equal([...stdout.matchAll(SIGNATURE)].length, 4, 'the registration and the three payments show their signatures')
  const merchantPid = Number(/\(process (\d+)\)/.exec(stdout)?.[1])
  t.ok(merchantPid > 0, 'the merchant process id is printed')
  t.notOk(isRunning(merchantPid), 'the merchant process was stopped')
})
