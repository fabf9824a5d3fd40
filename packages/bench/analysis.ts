// What the market, sell-quote and transfer-simulation checks add to one token analysis, on the local
// stand-ins: the local chain (in this process, as in the tests) and the Jupiter stand-in. Times the
// analyzer itself, one analysis at a time, no cache, for one mint with 25 funded holders listed on
// the stand-in, in three set-ups: the chain reads alone (what the analysis did before issue #32),
// with Jupiter (token record and two quotes), and with Jupiter and the transfer simulation (what the
// service runs). `latencyMs` delays every RPC answer and every stand-in answer, like a remote node.
// Run: npx tsx bench/analysis.ts [runs=200] [latencyMs=0]
import { startLocalnet } from '@token-merchant/localnet'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { createJupiterClient } from '../../lib/prices/jupiter-client.js'
import { createTokenAnalyzer } from '../../lib/token-analysis/analyze-token.js'
import { createMarketReader } from '../../lib/token-analysis/market.js'

const RUNS = Number(process.argv[2] ?? 200)
const LATENCY_MS = Number(process.argv[3] ?? 0)
const WARMUP = 20

const net = await startLocalnet()
const api = await startPriceApi()
const client = createJupiterClient({ baseUrl: api.url, timeoutMs: 5000, maxRetryWaitMs: 0 })
const mint = await net.createMint({ decimals: 6, freezeAuthority: null })
for (let i = 0; i < 25; i++) await net.mintTo(mint, (await net.createWallet()).address, 4_000_000n)
api.addToken({ mint, symbol: 'BENCH', name: 'Bench Coin', decimals: 6, usdPrice: 1.25, liquidity: 3_000_000 })
if (LATENCY_MS > 0) {
  net.setLatency(LATENCY_MS)
  api.fail({ mode: 'slow', delayMs: LATENCY_MS })
}

const market = createMarketReader({ client, baseUrl: api.url, network: 'localnet', ttlMs: 0 })
const setups = {
  'chain only (before)': createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0 }),
  '+ Jupiter market and quotes': createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, market }),
  '+ transfer simulation (service)': createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, market, transferSimulation: { budgetMs: 20_000 } })
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)]
const results: Array<{ setup: string, p50: number, p95: number }> = []
// Interleaved rounds, so a noisy spell on the shared machine hits every set-up alike.
const times: Record<string, number[]> = Object.fromEntries(Object.keys(setups).map(name => [name, []]))
for (let i = 0; i < WARMUP + RUNS; i++) {
  for (const [name, analyzer] of Object.entries(setups)) {
    const started = performance.now()
    const analysis = await analyzer.analyze(mint)
    const elapsed = performance.now() - started
    if (name.startsWith('+') && !analysis.market.available) throw new Error(`market unavailable: ${analysis.market.reason}`)
    if (i >= WARMUP) times[name].push(elapsed)
  }
}
for (const [name, list] of Object.entries(times)) {
  const sorted = [...list].sort((a, b) => a - b)
  results.push({ setup: name, p50: percentile(sorted, 50), p95: percentile(sorted, 95) })
}
const before = results[0].p50
console.log(`analysis latency, ${RUNS} runs each, RPC and stand-in latency ${LATENCY_MS} ms`)
for (const { setup, p50, p95 } of results) {
  console.log(`${setup.padEnd(34)} p50 ${p50.toFixed(1).padStart(7)} ms  p95 ${p95.toFixed(1).padStart(7)} ms  p50 vs before ${((p50 / before - 1) * 100).toFixed(0).padStart(4)}%`)
}
await client.close()
await api.stop()
await net.stop()
