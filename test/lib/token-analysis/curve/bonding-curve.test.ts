import { createHash } from 'node:crypto'
import t from 'tap'
import { generateKeyPairSigner, type Address } from '@solana/kit'
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { startLocalnet } from '@token-merchant/localnet'
import { createTokenAnalyzer } from '../../../../lib/token-analysis/analyze-token.js'
import type { PartInput } from '../../../../lib/token-analysis/analysis-part.js'
import { readParts } from '../../../../lib/token-analysis/compose-parts.js'
import { createCurvePart } from '../../../../lib/token-analysis/curve/curve-part.js'
import { curveAddress, globalAddress, graduatedPoolAddress, PUMP_PROGRAM } from '../../../../lib/token-analysis/curve/pump-curve.js'
import { POOL_PROGRAMS } from '../../../../lib/token-analysis/pools/pool-programs.js'

// Curves, pump.fun's Global account and a graduated PumpSwap pool written on the local chain in
// pump.fun's layout (the offsets of its public IDL); every figure asserted is one this test wrote.
const net = await startLocalnet()
t.teardown(() => net.stop())

const RENT = 10_000_000n
const anchor = (name: string) => createHash('sha256').update(`account:${name}`).digest().subarray(0, 8)
const fresh = async () => (await generateKeyPairSigner()).address
const never = new AbortController().signal

/** A 150-byte BondingCurve (the layout with the creator) of `owner`, or `size` bytes of it. */
function writeCurve (at: Address, fields: { virtualToken: bigint, virtualSol: bigint, realToken: bigint, realSol: bigint, supply: bigint, complete: boolean }, owner: Address = PUMP_PROGRAM, size = 150) {
  const data = Buffer.alloc(Math.max(size, 49))
  anchor('BondingCurve').copy(data, 0)
  data.writeBigUInt64LE(fields.virtualToken, 8)
  data.writeBigUInt64LE(fields.virtualSol, 16)
  data.writeBigUInt64LE(fields.realToken, 24)
  data.writeBigUInt64LE(fields.realSol, 32)
  data.writeBigUInt64LE(fields.supply, 40)
  data[48] = fields.complete ? 1 : 0
  net.setAccount(at, { lamports: RENT, data: new Uint8Array(data.subarray(0, size)), owner })
}

// Global: initial real token reserves of 800,000,000 tokens (6 decimals) at offset 89.
const INITIAL_REAL = 800_000_000_000_000n
const global = await globalAddress()
const globalData = Buffer.alloc(512)
anchor('Global').copy(globalData, 0)
globalData.writeBigUInt64LE(1_073_000_000_000_000n, 73)
globalData.writeBigUInt64LE(30_000_000_000n, 81)
globalData.writeBigUInt64LE(INITIAL_REAL, 89)
net.setAccount(global, { lamports: RENT, data: new Uint8Array(globalData), owner: PUMP_PROGRAM })

// In progress: 200,000,000 of the 800,000,000 sold, so progress is exactly 0.25.
const onCurve = await net.createMint({ decimals: 6, freezeAuthority: null, mintAuthority: null })
const onCurveAt = await curveAddress(onCurve)
const progressing = { virtualToken: 873_000_000_000_000n, virtualSol: 36_860_000_000n, realToken: 600_000_000_000_000n, realSol: 6_860_000_000n, supply: 1_000_000_000_000_000n, complete: false }
writeCurve(onCurveAt, progressing)

// Complete, with its PumpSwap pool at the canonical address; and complete without one.
const graduated = await fresh()
const graduatedAt = await curveAddress(graduated)
writeCurve(graduatedAt, { virtualToken: 0n, virtualSol: 0n, realToken: 0n, realSol: 0n, supply: 1_000_000_000_000_000n, complete: true })
const pool = await graduatedPoolAddress(graduated)
const poolData = Buffer.alloc(300)
anchor('Pool').copy(poolData, 0)
net.setAccount(pool, { lamports: RENT, data: new Uint8Array(poolData), owner: POOL_PROGRAMS.pumpswap.id })
const orphan = await fresh()
writeCurve(await curveAddress(orphan), { virtualToken: 0n, virtualSol: 0n, realToken: 0n, realSol: 0n, supply: 1n, complete: true })

// Not trusted: the curve's bytes under another owner, and a pump.fun account too short to be a curve.
const wrongOwner = await fresh()
writeCurve(await curveAddress(wrongOwner), progressing, TOKEN_PROGRAM_ADDRESS)
const tooShort = await fresh()
writeCurve(await curveAddress(tooShort), progressing, PUMP_PROGRAM, 40)

const input = (mint: Address, signal = never): PartInput => ({
  mint,
  tokenProgram: TOKEN_PROGRAM_ADDRESS,
  decimals: 6,
  supply: 1_000_000_000_000_000n,
  mintAuthority: null,
  freezeAuthority: null,
  slot: 1n,
  holders: Promise.resolve({ available: false, reason: 'not read' }),
  market: Promise.resolve({ state: 'not_applicable', reason: 'no price API' }),
  signal
})
const part = createCurvePart({ rpc: net.rpc })

t.test('a curve in progress: its reserves as written, progress against Global\'s initial real reserves, in one request', async t => {
  net.resetStats()
  const { fields, findings, checks } = await part.read(input(onCurve))
  t.same(net.stats(), { getMultipleAccounts: 1 }, 'curve, Global and the graduated pool in one getMultipleAccounts')
  t.same(fields.bonding_curve, {
    available: true,
    slot: fields.bonding_curve?.slot,
    address: onCurveAt,
    program: PUMP_PROGRAM,
    found: true,
    complete: false,
    progress: 0.25,
    virtual_token_reserves: '873000000000000',
    virtual_sol_reserves: '36860000000',
    real_token_reserves: '600000000000000',
    real_sol_reserves: '6860000000',
    token_total_supply: '1000000000000000',
    evidence: [onCurveAt, global]
  })
  t.ok(Number.isInteger(fields.bonding_curve?.slot))
  t.same(findings, [{ code: 'ON_BONDING_CURVE', params: { curve: onCurveAt, progress: '25.00%' } }])
  t.same(checks, [{ check: 'bonding_curve', source: 'chain', status: 'passed', slot: fields.bonding_curve?.slot }])
})

t.test('a complete curve names the PumpSwap pool it graduated to, and makes no finding', async t => {
  const { fields, findings } = await part.read(input(graduated))
  t.has(fields.bonding_curve, { found: true, complete: true, progress: 1, real_token_reserves: '0', graduated_pool: pool })
  t.same(fields.bonding_curve?.evidence, [graduatedAt, global, pool])
  t.notOk(fields.bonding_curve?.reason)
  t.same(findings, [])

  const alone = await part.read(input(orphan))
  t.has(alone.fields.bonding_curve, { complete: true, graduated_pool: null })
  t.match(alone.fields.bonding_curve?.reason, /no PumpSwap pool exists at the canonical address/)
})

t.test('a token without a curve: the part says so, without a finding, and the check does not apply', async t => {
  const mint = await fresh()
  const { fields, findings, checks } = await part.read(input(mint))
  t.has(fields.bonding_curve, { available: true, found: false, address: await curveAddress(mint), evidence: [await curveAddress(mint)] })
  t.match(fields.bonding_curve?.reason, /no pump\.fun bonding curve/)
  t.same(findings, [])
  t.match(checks, [{ check: 'bonding_curve', status: 'not_applicable' }])
})

t.test('an account at the curve address of another owner or too short is not trusted', async t => {
  for (const mint of [wrongOwner, tooShort]) {
    const { fields, findings, checks } = await part.read(input(mint))
    t.match(fields.bonding_curve, { available: false, reason: /not a bonding curve.*not trusted/, evidence: [] })
    t.notOk(fields.bonding_curve?.complete)
    t.same(findings, [])
    t.match(checks, [{ check: 'bonding_curve', status: 'unavailable' }])
  }
})

t.test('Global unreadable: the reserves still come, the progress is unknown and said to be', async t => {
  net.setAccount(global, { lamports: RENT, data: new Uint8Array(globalData.subarray(0, 90)), owner: PUMP_PROGRAM })
  t.teardown(() => net.setAccount(global, { lamports: RENT, data: new Uint8Array(globalData), owner: PUMP_PROGRAM }))
  const { fields, findings } = await part.read(input(onCurve))
  t.has(fields.bonding_curve, { found: true, complete: false, real_token_reserves: '600000000000000', evidence: [onCurveAt] })
  t.notOk('progress' in (fields.bonding_curve ?? {}))
  t.match(fields.bonding_curve?.reason, /Global account .* could not be read/)
  t.same(findings, [{ code: 'ON_BONDING_CURVE', params: { curve: onCurveAt, progress: 'an unknown share' } }])
})

t.test('the part that runs out of its budget answers unavailable with its reason', async t => {
  net.setLatency(2000)
  t.teardown(() => net.setLatency(0))
  const [outcome] = await readParts([part], input(onCurve, AbortSignal.timeout(50)))
  t.match(outcome.fields.bonding_curve, { available: false, reason: /ran out of time/, evidence: [] })
  t.same(outcome.findings, [])
  t.match(outcome.checks, [{ check: 'bonding_curve', status: 'unavailable', reason: /ran out of time/ }])
})

t.test('the analysis answers with `bonding_curve`, its finding at info weight and its check flagged', async t => {
  const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts: [part] })
  const analysis = await analyzer.analyze(onCurve)
  t.has(analysis.bonding_curve, { found: true, progress: 0.25 })
  t.match(analysis.risks.find(risk => risk.code === 'ON_BONDING_CURVE'), { level: 'info', weight: 2, message: /25\.00% sold/ })
  t.match(analysis.checks.find(check => check.check === 'bonding_curve'), { status: 'flagged', risks: ['ON_BONDING_CURVE'] })
})
