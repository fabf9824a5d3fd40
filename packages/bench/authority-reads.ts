// What reading the powers' holders (issue #44: one getMultipleAccounts once the metadata is read)
// adds to one token analysis as the service runs it (market, quotes and the transfer simulation, on
// the local stand-ins). Two SPL Token mints with the same 25 funded holders: one whose mint and
// freeze authorities are revoked (nobody holds a power: no read), one whose mint and freeze
// authorities are held (one getMultipleAccounts). Interleaved, one analysis at a time, no cache.
// `latencyMs` delays every RPC and stand-in answer, like a remote node: there the read runs beside
// the holder reads and the simulation (rounds 3 of 4), so it should add next to nothing.
// Run: npx tsx packages/bench/authority-reads.ts [runs=100] [latencyMs=0]
import { address, type Address } from '@solana/kit'
import { AuthorityType, getSetAuthorityInstruction } from '@solana-program/token-2022'
import { startLocalnet } from '@token-merchant/localnet'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { createJupiterClient } from '../../lib/prices/jupiter-client.js'
import { createTokenAnalyzer } from '../../lib/token-analysis/analyze-token.js'
import { createMarketReader } from '../../lib/token-analysis/market.js'

const RUNS = Number(process.argv[2] ?? 100)
const LATENCY_MS = Number(process.argv[3] ?? 0)
const WARMUP = 10
const TOKEN_PROGRAM = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')

const net = await startLocalnet()
const api = await startPriceApi()
const client = createJupiterClient({ baseUrl: api.url, timeoutMs: 5000, maxRetryWaitMs: 0 })

async function benchMint (symbol: string, revoke: boolean): Promise<Address> {
  const freezer = await net.createWallet(0n)
  const mint = await net.createMint({ decimals: 6, freezeAuthority: revoke ? null : freezer.address })
  for (let i = 0; i < 25; i++) await net.mintTo(mint, (await net.createWallet()).address, 4_000_000n)
  if (revoke) {
    await net.sendInstructions([getSetAuthorityInstruction(
      { owned: mint, owner: net.authority, authorityType: AuthorityType.MintTokens, newAuthority: null },
      { programAddress: TOKEN_PROGRAM }
    )], [net.authority])
  }
  api.addToken({ mint, symbol, name: `${symbol} Coin`, decimals: 6, usdPrice: 1.25, liquidity: 3_000_000 })
  return mint
}

const mints = {
  'no power held (no read)': await benchMint('NONE', true),
  'mint and freeze held (+1 read)': await benchMint('HELD', false)
}
if (LATENCY_MS > 0) {
  net.setLatency(LATENCY_MS)
  api.fail({ mode: 'slow', delayMs: LATENCY_MS })
}
const analyzer = createTokenAnalyzer({
  rpc: net.rpc,
  network: 'localnet',
  cacheTtlMs: 0,
  market: createMarketReader({ client, baseUrl: api.url, network: 'localnet', ttlMs: 0 }),
  transferSimulation: { budgetMs: 20_000 }
})

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)]
const times: Record<string, number[]> = Object.fromEntries(Object.keys(mints).map(name => [name, []]))
for (let i = 0; i < WARMUP + RUNS; i++) {
  for (const [name, mint] of Object.entries(mints)) {
    const started = performance.now()
    const analysis = await analyzer.analyze(mint)
    const elapsed = performance.now() - started
    const held = analysis.authorities.powers.length > 0
    if (held !== name.startsWith('mint')) throw new Error(`${name}: ${analysis.authorities.powers.length} powers`)
    if (i >= WARMUP) times[name].push(elapsed)
  }
}
console.log(`analysis latency as the service runs it, ${RUNS} runs each, RPC and stand-in latency ${LATENCY_MS} ms`)
const [baseline] = Object.values(times).map(list => percentile([...list].sort((a, b) => a - b), 50))
for (const [name, list] of Object.entries(times)) {
  const sorted = [...list].sort((a, b) => a - b)
  const p50 = percentile(sorted, 50)
  console.log(`${name.padEnd(32)} p50 ${p50.toFixed(1).padStart(7)} ms  p95 ${percentile(sorted, 95).toFixed(1).padStart(7)} ms  p50 vs no read ${((p50 / baseline - 1) * 100).toFixed(0).padStart(4)}%`)
}
await client.close()
await api.stop()
await net.stop()
