// What the liquidity part (issue #51) adds to one token analysis as the service runs it (market,
// quotes, the transfer simulation, the launch, clusters and creator parts), on the local stand-ins.
// One mint with 25 funded holders and a Raydium AMM v4 pool written on the local chain in its layout
// (vaults, an LP mint, LP held by the incinerator, a lock authority and a wallet). Jupiter names that
// pool as the token's first pool, as the real one does. Four set-ups, interleaved, one analysis at
// a time, no answer cache, the launch facts kept in a store as the service keeps them: before (no
// liquidity part) and after, each for a new token (an empty store; for the part, one
// getProgramAccounts per program and side) and a repeated one (what the first analysis kept, the
// pool list reused). Prints data-RPC requests per analysis, what the part adds by method, and
// p50/p95. `latencyMs` delays every RPC and stand-in answer, like a remote node.
// Run: npx tsx packages/bench/liquidity.ts [runs=50] [latencyMs=0]
import { address, generateKeyPairSigner, getAddressEncoder, none, type Address } from '@solana/kit'
import { AccountState, getMintEncoder, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { startLocalnet } from '@token-merchant/localnet'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { createSqliteStore } from '../../db/sqlite/sqlite-store.js'
import { createJupiterClient } from '../../lib/prices/jupiter-client.js'
import { createTokenAnalyzer } from '../../lib/token-analysis/analyze-token.js'
import { createLaunchParts } from '../../lib/token-analysis/launch/launch-parts.js'
import { createMarketReader, type MarketReader } from '../../lib/token-analysis/market.js'
import { createLiquidityPart } from '../../lib/token-analysis/pools/liquidity-part.js'
import { INCINERATOR, LOCKERS, POOL_PROGRAMS } from '../../lib/token-analysis/pools/pool-programs.js'

const RUNS = Number(process.argv[2] ?? 50)
const LATENCY_MS = Number(process.argv[3] ?? 0)
const WARMUP = 5
const USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
const RENT = 10_000_000n

const net = await startLocalnet()
const api = await startPriceApi()
const client = createJupiterClient({ baseUrl: api.url, timeoutMs: 5000, maxRetryWaitMs: 0 })
const mint = await net.createMint({ decimals: 6, freezeAuthority: null })
for (let i = 0; i < 25; i++) await net.mintTo(mint, (await net.createWallet()).address, 4_000_000n)
await net.createMint({ address: USDC, decimals: 6 })
api.addToken({ mint, symbol: 'BENCH', name: 'Bench Coin', decimals: 6, usdPrice: 1.25, liquidity: 3_000_000 })

const fresh = async () => (await generateKeyPairSigner()).address
const tokenAccount = (at: Address, of: Address, owner: Address, amount: bigint) => net.setAccount(at, {
  lamports: RENT,
  owner: TOKEN_PROGRAM_ADDRESS,
  data: new Uint8Array(getTokenEncoder().encode({ mint: of, owner, amount, delegate: none(), state: AccountState.Initialized, isNative: none(), delegatedAmount: 0n, closeAuthority: none() }))
})
const pool = await fresh()
const [baseVault, quoteVault, lpMint] = [await fresh(), await fresh(), await fresh()]
tokenAccount(baseVault, mint, await fresh(), 50_000_000n)
tokenAccount(quoteVault, USDC, await fresh(), 60_000_000n)
net.setAccount(lpMint, { lamports: RENT, owner: TOKEN_PROGRAM_ADDRESS, data: new Uint8Array(getMintEncoder().encode({ mintAuthority: none(), supply: 1000n, decimals: 9, isInitialized: true, freezeAuthority: none() })) })
tokenAccount(await fresh(), lpMint, INCINERATOR, 600n)
tokenAccount(await fresh(), lpMint, LOCKERS[0].authorities[0], 300n)
tokenAccount(await fresh(), lpMint, await fresh(), 100n)
const data = Buffer.alloc(752)
const keys = getAddressEncoder()
for (const [offset, key] of [[336, baseVault], [368, quoteVault], [400, mint], [432, USDC], [464, lpMint]] as const) data.set(keys.encode(key), offset)
data.writeBigUInt64LE(1000n, 720)
net.setAccount(pool, { lamports: RENT, owner: POOL_PROGRAMS.raydium_amm_v4.id, data: new Uint8Array(data) })

const stand = createMarketReader({ client, baseUrl: api.url, network: 'localnet', ttlMs: 0 })
// The stand-in names the mint itself as firstPool.id; Jupiter names the pool.
const market: MarketReader = {
  ...stand,
  readMarket: async address => {
    const read = await stand.readMarket(address)
    return read.state === 'listed' ? { ...read, record: { ...read.record, firstPool: { ...read.record.firstPool, id: pool } } } : read
  }
}
if (LATENCY_MS > 0) {
  net.setLatency(LATENCY_MS)
  api.fail({ mode: 'slow', delayMs: LATENCY_MS })
}

// The launch facts and funders are kept in the store as the service keeps them: a new token starts
// with an empty one, a repeated one finds what its first analysis kept.
const stores: Array<ReturnType<typeof createSqliteStore>> = []
const parts = (liquidity: boolean, store = createSqliteStore(':memory:')) => {
  stores.push(store)
  return [...createLaunchParts({ rpc: net.rpc, network: 'localnet', store: store.launchFacts }), ...(liquidity ? [createLiquidityPart({ rpc: net.rpc, network: 'localnet' })] : [])]
}
const service = (liquidity: boolean) => createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, market, transferSimulation: { budgetMs: 20_000 }, parts: parts(liquidity), partsBudgetMs: 20_000 })
const kept = { before: service(false), after: service(true) }
// A new analyzer each time has an empty store and an empty pool-list cache: a mint never analysed.
const setups: Record<string, () => ReturnType<typeof service>> = {
  'before, new token': () => service(false),
  'before, repeated token': () => kept.before,
  'after, new token': () => service(true),
  'after, repeated token': () => kept.after
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)]
const times: Record<string, number[]> = Object.fromEntries(Object.keys(setups).map(name => [name, []]))
const requests: Record<string, Record<string, number>> = {}
for (let i = 0; i < WARMUP + RUNS; i++) {
  for (const [name, analyzer] of Object.entries(setups)) {
    const current = analyzer()
    net.resetStats()
    const started = performance.now()
    const analysis = await current.analyze(mint)
    const elapsed = performance.now() - started
    if (name.startsWith('after') && analysis.liquidity?.pools[0]?.address !== pool) throw new Error(`${name}: ${JSON.stringify(analysis.liquidity)}`)
    if (i >= WARMUP) times[name].push(elapsed)
    requests[name] = net.stats()
  }
}
console.log(`analysis as the service runs it, ${RUNS} runs each, RPC and stand-in latency ${LATENCY_MS} ms`)
const total = (stats: Record<string, number>) => Object.values(stats).reduce((sum, count) => sum + count, 0)
for (const [name, list] of Object.entries(times)) {
  const sorted = [...list].sort((a, b) => a - b)
  const base = requests[name.replace('after', 'before')]
  const added = name.startsWith('after') ? Object.entries(requests[name]).flatMap(([method, count]) => count === (base[method] ?? 0) ? [] : [`${method} +${count - (base[method] ?? 0)}`]).join(', ') : ''
  console.log(`${name.padEnd(28)} ${String(total(requests[name])).padStart(3)} data-RPC requests  p50 ${percentile(sorted, 50).toFixed(1).padStart(7)} ms  p95 ${percentile(sorted, 95).toFixed(1).padStart(7)} ms  ${added}`)
}
for (const store of stores) store.close()
await client.close()
await api.stop()
await net.stop()
