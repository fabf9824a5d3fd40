import { createHash } from 'node:crypto'
import t from 'tap'
import { address, generateKeyPairSigner, getAddressEncoder, none, type Address } from '@solana/kit'
import { AccountState, getMintEncoder, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { getWhirlpoolEncoder } from '@orca-so/whirlpools-client'
import { startLocalnet } from '@token-merchant/localnet'
import { createTokenAnalyzer } from '../../../../lib/token-analysis/analyze-token.js'
import type { PartInput } from '../../../../lib/token-analysis/analysis-part.js'
import { readParts } from '../../../../lib/token-analysis/compose-parts.js'
import type { MarketRead } from '../../../../lib/token-analysis/market.js'
import { createLiquidityPart } from '../../../../lib/token-analysis/pools/liquidity-part.js'
import { INCINERATOR, LOCKERS, POOL_PROGRAMS } from '../../../../lib/token-analysis/pools/pool-programs.js'
import { readPools } from '../../../../lib/token-analysis/pools/read-pools.js'
import { poolBody } from '../../../../lib/token-analysis/pools/pool-body.js'
import { METEORA_VAULT_PROGRAM } from '../../../../lib/token-analysis/pools/meteora-vaults.js'

// Pools written on the local chain in each program's layout, with the vaults, LP mints and LP
// holders a real pool has; every figure asserted is one this test wrote.
const net = await startLocalnet()
t.teardown(() => net.stop())
// Public nodes often refuse getProgramAccounts: most tests here have the local chain refuse it too,
// so the fallback (the pools the market data names) is what they exercise; the search itself is
// tested below with the method served, as agave serves it.
const refuseSearches = () => net.failMethod('getProgramAccounts', { code: -32601, message: 'Method not found' })
refuseSearches()

const USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
const RENT = 10_000_000n
const keys = getAddressEncoder()
const fresh = async () => (await generateKeyPairSigner()).address
const anchor = (name: string) => createHash('sha256').update(`account:${name}`).digest().subarray(0, 8)

const token = await net.createMint({ decimals: 6, freezeAuthority: null })
await net.createMint({ address: USDC, decimals: 6 })

function writeTokenAccount (at: Address, mint: Address, owner: Address, amount: bigint) {
  const data = getTokenEncoder().encode({ mint, owner, amount, delegate: none(), state: AccountState.Initialized, isNative: none(), delegatedAmount: 0n, closeAuthority: none() })
  net.setAccount(at, { lamports: RENT, data: new Uint8Array(data), owner: TOKEN_PROGRAM_ADDRESS })
}
function writeMint (at: Address, supply: bigint, decimals = 9) {
  const data = getMintEncoder().encode({ mintAuthority: none(), supply, decimals, isInitialized: true, freezeAuthority: none() })
  net.setAccount(at, { lamports: RENT, data: new Uint8Array(data), owner: TOKEN_PROGRAM_ADDRESS })
}
/** A pool account: `size` bytes of `program`, an optional discriminator, keys and integers at offsets. */
function writePool (at: Address, program: Address, size: number, fields: { discriminator?: Buffer, keys?: Record<number, Address>, u64?: Record<number, bigint>, u128?: Record<number, bigint> }) {
  const data = Buffer.alloc(size)
  fields.discriminator?.copy(data, 0)
  for (const [offset, key] of Object.entries(fields.keys ?? {})) data.set(keys.encode(key), Number(offset))
  for (const [offset, value] of Object.entries(fields.u64 ?? {})) data.writeBigUInt64LE(value, Number(offset))
  for (const [offset, value] of Object.entries(fields.u128 ?? {})) {
    data.writeBigUInt64LE(value & ((1n << 64n) - 1n), Number(offset))
    data.writeBigUInt64LE(value >> 64n, Number(offset) + 8)
  }
  net.setAccount(at, { lamports: RENT, data: new Uint8Array(data), owner: program })
}
/** Two vaults with these balances; returns their addresses. */
async function vaults (quote: Address, base: bigint, quoteAmount: bigint, baseFirst = true): Promise<[Address, Address]> {
  const [a, b] = [await fresh(), await fresh()]
  const authority = await fresh()
  writeTokenAccount(a, baseFirst ? token : quote, authority, baseFirst ? base : quoteAmount)
  writeTokenAccount(b, baseFirst ? quote : token, authority, baseFirst ? quoteAmount : base)
  return [a, b]
}

// Raydium AMM v4, token/USDC: 1,000 LP minted (lp_reserve), 400 of them burned by SPL Burn (the
// mint's supply is 600), 100 held by the incinerator, 150 by Raydium's lock authority, 50 by an
// account of Streamflow's program, 300 by a wallet: burned (400 + 100) / 1000, locked 200 / 1000.
const amm = await fresh()
const [ammBase, ammQuote] = await vaults(USDC, 700_000_000n, 5_000_000_000n)
const ammLp = await fresh()
writeMint(ammLp, 600n)
writePool(amm, POOL_PROGRAMS.raydium_amm_v4.id, 752, {
  keys: { 336: ammBase, 368: ammQuote, 400: token, 432: USDC, 464: ammLp },
  u64: { 192: 1_000_000n, 200: 100n, 720: 1000n }
})
const incineratorLp = await fresh()
writeTokenAccount(incineratorLp, ammLp, INCINERATOR, 100n)
const raydiumLockLp = await fresh()
writeTokenAccount(raydiumLockLp, ammLp, LOCKERS[0].authorities[0], 150n)
const streamflow = LOCKERS.find(locker => locker.name === 'Streamflow')!.program
const stream = await fresh()
net.setAccount(stream, { lamports: RENT, data: new Uint8Array(64), owner: streamflow })
const streamLp = await fresh()
writeTokenAccount(streamLp, ammLp, stream, 50n)
const walletLp = await fresh()
writeTokenAccount(walletLp, ammLp, await fresh(), 300n)

// Raydium CPMM, USDC/token (the token second): LP 1,000 recorded and supplied, all in a wallet;
// protocol fees 10 and fund fees 5 of the token owed.
const cpmm = await fresh()
const [cpmmQuote, cpmmBase] = await vaults(USDC, 1_000_000n, 200_000_000n, false)
const cpmmLp = await fresh()
writeMint(cpmmLp, 1000n)
writeTokenAccount(await fresh(), cpmmLp, await fresh(), 1000n)
writePool(cpmm, POOL_PROGRAMS.raydium_cpmm.id, 637, {
  discriminator: anchor('PoolState'),
  keys: { 72: cpmmQuote, 104: cpmmBase, 136: cpmmLp, 168: USDC, 200: token },
  u64: { 333: 1000n, 349: 10n, 365: 5n }
})

// PumpSwap, token/USDC (300-byte layout): 500 LP, all held by the incinerator.
const pump = await fresh()
const [pumpBase, pumpQuote] = await vaults(USDC, 300_000_000n, 2_000_000n)
const pumpLp = await fresh()
writeMint(pumpLp, 500n)
writeTokenAccount(await fresh(), pumpLp, INCINERATOR, 500n)
writePool(pump, POOL_PROGRAMS.pumpswap.id, 300, {
  discriminator: anchor('Pool'),
  keys: { 43: token, 75: USDC, 107: pumpLp, 139: pumpBase, 171: pumpQuote },
  u64: { 203: 500n }
})

// Meteora DAMM v2: 90% of its liquidity (a u128 above 2^64) permanently locked.
const dammV2 = await fresh()
const [dammBase, dammQuote] = await vaults(USDC, 100_000_000n, 400_000n)
const liquidity = 10n ** 30n
writePool(dammV2, POOL_PROGRAMS.meteora_damm_v2.id, 1112, {
  discriminator: anchor('Pool'),
  keys: { 168: token, 200: USDC, 232: dammBase, 264: dammQuote },
  u128: { 360: liquidity, 552: liquidity * 9n / 10n }
})

// Orca Whirlpool, written with Orca's own encoder: protocol fees owed on both sides.
const whirlpool = await fresh()
const [whirlBase, whirlQuote] = await vaults(USDC, 50_000_000n, 300_000n)
const whirlData = getWhirlpoolEncoder().encode({
  whirlpoolsConfig: await fresh(),
  whirlpoolBump: new Uint8Array([255]),
  tickSpacing: 64,
  feeTierIndexSeed: new Uint8Array([64, 0]),
  feeRate: 3000,
  protocolFeeRate: 1300,
  liquidity: 123_456_789n,
  sqrtPrice: 1n << 64n,
  tickCurrentIndex: 0,
  protocolFeeOwedA: 7n,
  protocolFeeOwedB: 3n,
  tokenMintA: token,
  tokenVaultA: whirlBase,
  feeGrowthGlobalA: 0n,
  tokenMintB: USDC,
  tokenVaultB: whirlQuote,
  feeGrowthGlobalB: 0n,
  rewardLastUpdatedTimestamp: 0n,
  rewardInfos: Array.from({ length: 3 }, () => ({ mint: INCINERATOR, vault: INCINERATOR, extension: new Uint8Array(32), emissionsPerSecondX64: 0n, growthGlobalX64: 0n }))
})
net.setAccount(whirlpool, { lamports: RENT, data: new Uint8Array(whirlData), owner: POOL_PROGRAMS.orca_whirlpool.id })

// Raydium CLMM and Meteora DLMM: mints and vaults only; their positions are not an LP token.
const clmm = await fresh()
const [clmmBase, clmmQuote] = await vaults(USDC, 10_000_000n, 20_000n)
writePool(clmm, POOL_PROGRAMS.raydium_clmm.id, 1544, { discriminator: anchor('PoolState'), keys: { 73: token, 105: USDC, 137: clmmBase, 169: clmmQuote }, u128: { 237: 999n } })
const dlmm = await fresh()
const [dlmmBase, dlmmQuote] = await vaults(USDC, 5_000_000n, 10_000n)
writePool(dlmm, POOL_PROGRAMS.meteora_dlmm.id, 904, { discriminator: anchor('LbPair'), keys: { 88: token, 120: USDC, 152: dlmmBase, 184: dlmmQuote } })

// Meteora DAMM v1: 2,000 LP supplied, 500 in its own lock escrows (total_locked_lp).
const dammV1 = await fresh()
const dammV1Lp = await fresh()
writeMint(dammV1Lp, 2000n)
writeTokenAccount(await fresh(), dammV1Lp, await fresh(), 2000n)
writePool(dammV1, POOL_PROGRAMS.meteora_damm_v1.id, 944, { discriminator: anchor('Pool'), keys: { 8: dammV1Lp, 40: token, 72: USDC, 168: await fresh(), 200: await fresh() }, u64: { 395: 500n } })

// Not pools of the token: an account of another program at a pool's size, a pool of other mints, nothing at all.
const impostor = await fresh()
writePool(impostor, TOKEN_PROGRAM_ADDRESS, 752, { keys: { 400: token, 432: USDC } })
const otherPool = await fresh()
writePool(otherPool, POOL_PROGRAMS.raydium_amm_v4.id, 752, { keys: { 400: USDC, 432: await fresh() } })
const absent = await fresh()

const ALL = [amm, cpmm, pump, dammV2, whirlpool, clmm, dlmm, dammV1]
const never = new AbortController().signal

t.test('every program\'s pool decodes to what was written: reserves net of fees owed, LP burned and locked', async t => {
  const { facts } = await readPools(net.rpc, token, [...ALL, impostor, otherPool, absent], never)
  const bodies = new Map(facts.map(fact => [fact.pool.address, poolBody(fact, token, 6, 0.5, 'localnet')]))
  t.same([...bodies.keys()], [amm, pump, dammV2, whirlpool, clmm, dlmm, cpmm, dammV1], 'the token\'s pools only, largest token reserve first')

  // t.has compares values exactly (t.match would take a string as a substring).
  t.has(bodies.get(amm), {
    program: POOL_PROGRAMS.raydium_amm_v4.id,
    dex: 'Raydium AMM v4',
    base_mint: token,
    quote_mint: USDC,
    base_reserve: '699000000',
    quote_reserve: '4999999900',
    quote_symbol: 'USDC',
    liquidity_usd: 5349.5,
    lp_model: 'lp_token',
    lp_mint: ammLp,
    lp_supply: '600',
    lp_burned_share: 0.5,
    lp_locked_share: 0.2
  })
  t.same(new Set(bodies.get(amm)?.locks.map(lock => `${lock.program} ${lock.account} ${lock.amount}`)), new Set([
    `${LOCKERS[0].program} ${raydiumLockLp} 150`,
    `${streamflow} ${streamLp} 50`
  ]), 'the lockers\' LP accounts, each with its program')
  t.ok([amm, ammBase, ammQuote, ammLp, incineratorLp, raydiumLockLp, streamLp, stream].every(account => bodies.get(amm)?.evidence.includes(account)), 'the accounts read are the evidence')
  t.notOk(bodies.get(amm)?.evidence.includes(walletLp), 'a wallet\'s LP is not evidence of a burn or lock')

  t.has(bodies.get(cpmm), { base_reserve: String(1_000_000n - 15n), quote_reserve: '200000000', lp_burned_share: 0, lp_locked_share: 0, locks: [] })
  t.has(bodies.get(pump), { base_reserve: '300000000', lp_supply: '500', lp_burned_share: 1, lp_locked_share: 0 })
  t.has(bodies.get(dammV2), { base_reserve: '100000000', quote_reserve: '400000', lp_model: 'concentrated', lp_mint: null, lp_burned_share: null, lp_locked_share: 0.9 })
  t.has(bodies.get(whirlpool), { base_reserve: String(50_000_000n - 7n), quote_reserve: String(300_000n - 3n), lp_model: 'concentrated', lp_locked_share: null })
  t.match(bodies.get(whirlpool)?.reason, /positions/)
  t.has(bodies.get(clmm), { base_reserve: '10000000', quote_reserve: '20000', lp_model: 'concentrated', lp_locked_share: null })
  t.has(bodies.get(dlmm), { base_reserve: '5000000', quote_reserve: '10000', lp_model: 'bin', lp_locked_share: null })
  t.has(bodies.get(dammV1), { base_reserve: null, lp_supply: '2000', lp_burned_share: null, lp_locked_share: null })
  t.match(bodies.get(dammV1)?.reason, /Meteora vaults.*3 largest pools/, 'LP holders are read for three pools only; the fourth says so')

  const alone = await readPools(net.rpc, token, [dammV1], never)
  t.has(poolBody(alone.facts[0], token, 6, null, 'localnet'), { lp_burned_share: 0, lp_locked_share: 0.25, liquidity_usd: null })
})

t.test('DAMM v1: each side is its vault LP\'s share of the Meteora vault\'s total, the vault checked to hold the pool\'s mint', async t => {
  const vaultAccount = (at: Address, mint: Address, lpMint: Address, total: bigint) => {
    const data = Buffer.alloc(1227)
    anchor('Vault').copy(data, 0)
    data.writeBigUInt64LE(total, 11)
    data.set(keys.encode(mint), 83)
    data.set(keys.encode(lpMint), 115)
    net.setAccount(at, { lamports: RENT, data: new Uint8Array(data), owner: METEORA_VAULT_PROGRAM })
  }
  // A mint of its own, so the search test below finds only the pools written for `token`.
  const coin = await net.createMint({ decimals: 6, freezeAuthority: null })
  const [vaultA, vaultB, vaultLpA, vaultLpB, sharesA, sharesB, pool, poolLp] = await Promise.all(Array.from({ length: 8 }, fresh))
  // Vault A holds 9,000 of the coin against 3,000 vault LP, the pool 1,000 of them: 3,000 coins.
  vaultAccount(vaultA, coin, vaultLpA, 9_000n)
  writeMint(vaultLpA, 3_000n)
  writeTokenAccount(sharesA, vaultLpA, await fresh(), 1_000n)
  // Vault B holds 500 USDC against 1,000 vault LP, the pool 200: 100 USDC.
  vaultAccount(vaultB, USDC, vaultLpB, 500n)
  writeMint(vaultLpB, 1_000n)
  writeTokenAccount(sharesB, vaultLpB, await fresh(), 200n)
  writeMint(poolLp, 10n)
  const write = (a: Address, b: Address) => writePool(pool, POOL_PROGRAMS.meteora_damm_v1.id, 944, {
    discriminator: anchor('Pool'), keys: { 8: poolLp, 40: coin, 72: USDC, 104: a, 136: b, 168: sharesA, 200: sharesB }
  })
  write(vaultA, vaultB)
  const { facts } = await readPools(net.rpc, coin, [pool], never)
  const body = poolBody(facts[0], coin, 6, 0.5, 'localnet')
  t.has(body, { base_reserve: '3000', quote_reserve: '100' })
  t.ok([vaultA, vaultB, vaultLpA, vaultLpB].every(account => body.evidence.includes(account)), 'the vaults and their LP mints are the evidence')

  write(vaultB, vaultA)
  const swapped = await readPools(net.rpc, coin, [pool], never)
  t.has(poolBody(swapped.facts[0], coin, 6, 0.5, 'localnet'), { base_reserve: null, quote_reserve: null }, 'a vault of the other mint prices nothing')
})

const marketNaming = (pool: string | undefined, usdPrice = 0.5): Promise<MarketRead> => Promise.resolve({
  state: 'listed',
  readAt: new Date(0),
  record: { id: token, usdPrice, ...(pool === undefined ? {} : { firstPool: { id: pool, createdAt: '2026-01-01T00:00:00Z' } }) }
})
const input = (market: Promise<MarketRead>, signal = never): PartInput => ({
  mint: token,
  tokenProgram: TOKEN_PROGRAM_ADDRESS,
  decimals: 6,
  supply: 1_000_000_000n,
  mintAuthority: null,
  freezeAuthority: null,
  slot: 1n,
  holders: Promise.resolve({ available: false, reason: 'not read' }),
  market,
  signal
})

t.test('a node refusing getProgramAccounts: the pool the market data names is read, checked, and LP_UNLOCKED judged on it', async t => {
  const part = createLiquidityPart({ rpc: net.rpc, network: 'localnet' })
  const { fields, findings, checks } = await part.read(input(marketNaming(amm)))
  t.equal(fields.liquidity?.available, true)
  t.match(fields.liquidity?.reason, /refused getProgramAccounts for every program/)
  t.same(fields.liquidity?.pools.map(pool => pool.address), [amm])
  t.same(findings, [{ code: 'LP_UNLOCKED', params: { percent: '30.00%', pool: amm, dex: 'Raydium AMM v4' } }], 'the wallet\'s 300 of 1,000 LP can be withdrawn')
  t.match(checks, [{ check: 'liquidity', source: 'chain', status: 'passed', reason: /refused/ }])

  const burnt = await part.read(input(marketNaming(pump)))
  t.same(burnt.findings, [], 'all LP burned: nothing to withdraw')
  const locked = await part.read(input(marketNaming(dammV2)))
  t.same(locked.findings, [{ code: 'LP_UNLOCKED', params: { percent: '10.00%', pool: dammV2, dex: 'Meteora DAMM v2' } }])
})

t.test('a node serving getProgramAccounts: every pool found without market data, one search per program and side, NO_POOL when none', async t => {
  net.failMethod('getProgramAccounts', null)
  t.teardown(refuseSearches)
  const part = createLiquidityPart({ rpc: net.rpc, network: 'localnet' })
  net.resetStats()
  const { fields, findings, checks } = await part.read(input(marketNaming(undefined)))
  t.equal(net.stats().getProgramAccounts, 2 * Object.keys(POOL_PROGRAMS).length, 'two searches (the mint at each side) for each of the programs')
  t.equal(fields.liquidity?.available, true)
  t.equal(fields.liquidity?.reason, undefined, 'every program searched: nothing to say')
  t.same(new Set(fields.liquidity?.pools.map(pool => pool.address)), new Set(ALL), 'the eight pools written, none of the look-alikes')
  t.same(findings.map(finding => finding.code), ['LP_UNLOCKED'], 'judged on the largest pool (AMM v4)')
  t.match(checks, [{ check: 'liquidity', status: 'passed' }])

  const lonely = await net.createMint({ decimals: 6, freezeAuthority: null })
  const none = await part.read({ ...input(marketNaming(undefined)), mint: lonely })
  t.same(none.fields.liquidity?.pools, [])
  t.same(none.findings, [{ code: 'NO_POOL', params: { programs: none.findings[0]?.params.programs } }], 'a complete search that finds nothing: NO_POOL')
  t.match(String(none.findings[0]?.params.programs), /Raydium AMM v4.*PumpSwap/)
})

t.test('a pool named by the market that is absent or of another program is not listed', async t => {
  const part = createLiquidityPart({ rpc: net.rpc, network: 'localnet' })
  for (const named of [impostor, absent, otherPool]) {
    const { fields, findings } = await part.read(input(marketNaming(named)))
    t.same(fields.liquidity?.pools, [], `${named} is not a pool of the token`)
    t.same(findings, [], 'an incomplete search is no proof of no pool: NO_POOL is not reported')
  }
  const { fields, checks } = await part.read(input(marketNaming(undefined)))
  t.equal(fields.liquidity?.available, false, 'nothing searched and nothing named: unavailable')
  t.match(checks, [{ check: 'liquidity', status: 'unavailable', reason: /could not be searched/ }])
})

t.test('a part that runs out of its budget answers unavailable with its reason', async t => {
  const part = createLiquidityPart({ rpc: net.rpc, network: 'localnet' })
  net.setLatency(2000)
  t.teardown(() => net.setLatency(0))
  const [outcome] = await readParts([part], input(marketNaming(amm), AbortSignal.timeout(50)))
  t.match(outcome.fields.liquidity, { available: false, reason: /ran out of time/, pools: [] })
  t.match(outcome.checks, [{ check: 'liquidity', status: 'unavailable' }])
})

t.test('the analysis answers with `liquidity` and its check', async t => {
  const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts: [createLiquidityPart({ rpc: net.rpc, network: 'localnet' })] })
  const analysis = await analyzer.analyze(token)
  t.match(analysis.liquidity, { available: false, reason: /could not be searched/ }, 'without market data, a node that will not search leaves the pools unknown')
  t.match(analysis.checks.find(check => check.check === 'liquidity'), { status: 'unavailable', source: 'chain' })
})
