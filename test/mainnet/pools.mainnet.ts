// Real mainnet pools and pump.fun curves (<fixtures>/mainnet-pools/accounts, sources in its SOURCES.md):
// every program's decoder checked against the bytes as this test reads them at the offsets the
// programs' sources give (docs/token-analysis.md), and against the figures the repositories the
// bytes come from published beside them (liquidity, LP reserve and supply, fees owed, the curve's
// reserves). Then a real DAMM v2 pool is loaded into the local chain, found by getProgramAccounts and
// read with vaults this test writes: the locked share is the 90.09% SOURCES.md gives.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { generateKeyPairSigner, getAddressDecoder, none, type Address } from '@solana/kit'
import { AccountState, getMintDecoder, getTokenDecoder, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { readAccountFile, startLocalnet, type AccountFixture } from '@token-merchant/localnet'
import { decodePool } from '../../lib/token-analysis/pools/pool-decoders.js'
import { POOL_PROGRAMS, type PoolProgramName } from '../../lib/token-analysis/pools/pool-programs.js'
import { createLiquidityPart } from '../../lib/token-analysis/pools/liquidity-part.js'
import { readPools } from '../../lib/token-analysis/pools/read-pools.js'
import { poolBody } from '../../lib/token-analysis/pools/pool-body.js'
import { decodeCurve, decodeInitialRealTokens } from '../../lib/token-analysis/curve/pump-curve.js'
import type { PartInput } from '../../lib/token-analysis/analysis-part.js'
import { mainnetFixtures } from './fixtures-folder.js'

const DIR = `${mainnetFixtures('mainnet-pools', 'accounts')}/`
const SOL = 'So11111111111111111111111111111111111111112'
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

const keyAt = (data: Uint8Array, offset: number) => getAddressDecoder().decode(data.subarray(offset, offset + 32))
const u64At = (data: Uint8Array, offset: number) => Buffer.from(data).readBigUInt64LE(offset)

/** Where each program keeps its mints and vaults (the programs' sources, as docs/token-analysis.md lists them). */
const OFFSETS: Record<PoolProgramName, { mints: [number, number], vaults: [number, number] }> = {
  raydium_amm_v4: { mints: [400, 432], vaults: [336, 368] },
  raydium_cpmm: { mints: [168, 200], vaults: [72, 104] },
  raydium_clmm: { mints: [73, 105], vaults: [137, 169] },
  orca_whirlpool: { mints: [101, 181], vaults: [133, 213] },
  meteora_dlmm: { mints: [88, 120], vaults: [152, 184] },
  meteora_damm_v1: { mints: [40, 72], vaults: [168, 200] },
  meteora_damm_v2: { mints: [168, 200], vaults: [232, 264] },
  pumpswap: { mints: [43, 75], vaults: [139, 171] }
}

/**
 * Each pool file, its program, the mints SOURCES.md names (full addresses or their first
 * characters) and the figures published with the bytes.
 */
const POOLS: Array<{ file: string, program: PoolProgramName, mints: [string, string], published: Record<string, bigint | string> }> = [
  { file: 'raydium_ammv4_pool-58oQChx4.json', program: 'raydium_amm_v4', mints: [SOL, USDC], published: { lpRecorded: 102528382854742n, pending0: 183502858n, pending1: 21928100n, lpMint: '8HoQnePL' } },
  { file: 'raydium_cpmm_pool-Q2sPHPdU.json', program: 'raydium_cpmm', mints: [SOL, 'Dz9mQ9Nz'], published: { lpRecorded: 4192510124589n, lpMint: '5rASbyrU' } },
  { file: 'raydium_cpmm_pool-BtGUffME.json', program: 'raydium_cpmm', mints: [SOL, '4JPyh4AT'], published: { lpRecorded: 3836966203034n, lpMint: '32G1zhdf' } },
  { file: 'raydium_clmm_pool-AcPS8Srz.json', program: 'raydium_clmm', mints: [SOL, '4kzLMxfM'], published: { liquidity: 3464101788356n } },
  { file: 'raydium_clmm_pool-3ucNos4N.json', program: 'raydium_clmm', mints: [SOL, USDC], published: { liquidity: 295329867866867n } },
  { file: 'orca_whirlpool-CGGNcohZ.json', program: 'orca_whirlpool', mints: [SOL, 'DzkKGBw4'], published: { liquidity: 141421356n } },
  { file: 'orca_whirlpool-Czfq3xZZ.json', program: 'orca_whirlpool', mints: [SOL, USDC], published: { liquidity: 740600641175286n } },
  { file: 'orca_whirlpool-7vWRTPPB.json', program: 'orca_whirlpool', mints: ['JUPyiwrY', 'WENWENvq'], published: { liquidity: 61033076338n } },
  { file: 'orca_whirlpool-HyA4ct7i.json', program: 'orca_whirlpool', mints: ['pumpCmXq', USDC], published: { liquidity: 27294928523276n } },
  { file: 'orca_whirlpool-HsQGWEh3.json', program: 'orca_whirlpool', mints: [SOL, 'Dz9mQ9Nz'], published: { liquidity: 20390156339519n } },
  { file: 'meteora_dlmm_lbpair-7wR3Zy7y.json', program: 'meteora_dlmm', mints: ['9fEXUmPn', SOL], published: {} },
  { file: 'meteora_dlmm_lbpair-6StaAqeV.json', program: 'meteora_dlmm', mints: ['27G8MtK7', ''], published: {} },
  { file: 'meteora_dlmm_lbpair-8ztFxjFP.json', program: 'meteora_dlmm', mints: ['Dz9mQ9Nz', SOL], published: {} },
  { file: 'meteora_damm_v1_pool-HcjZvfeS.json', program: 'meteora_damm_v1', mints: [SOL, 'mSoLzYCx'], published: { lpMint: 'B2uEs9zjnz222hfUaUuRgesryUEYwy3JGuWe31sE9gsG', vault0: 'HWnWnLvBzvSmXH5hnHJCFmuQbDTsX3Ba2w9CPE5zf4YD', vault1: 'GGG4DxkYa86g2v4KwtvR8Xu2tXEp1xd4BRC3yNnpve3g' } },
  { file: 'meteora_damm_v2_pool-6CXXieC3.json', program: 'meteora_damm_v2', mints: ['G1DXVVmq', SOL], published: { liquidity: 2461259741443399418112242871877920n, permanentLiquidity: 2217449760464976157620544597834290n } },
  { file: 'meteora_damm_v2_pool-77Qwh7cW.json', program: 'meteora_damm_v2', mints: ['6yMfYLz3', SOL], published: { liquidity: 64691962362050821924071850510396n, permanentLiquidity: 63382289836820512178602402762141n } },
  { file: 'pumpswap_pool-GUXAutvX.json', program: 'pumpswap', mints: ['3Sf6oKCe', SOL], published: { lpRecorded: 4193388308335n, lpMint: 'bLafbwgN' } }
]

const decodeFixture = (fixture: AccountFixture) => decodePool(fixture.address, fixture.account.owner, Buffer.from(fixture.account.data))
// A name SOURCES.md gives whole is compared whole, its first characters as a prefix ('' where it names a symbol only).
const namedBy = (actual: string, named: string) => named.length >= 32 ? actual === named : actual.startsWith(named)

t.test('every program\'s decoder reads the real pools as their bytes and their sources say', async t => {
  for (const { file, program, mints, published } of POOLS) {
    const fixture = readAccountFile(`${DIR}${file}`)
    t.equal(fixture.account.owner, POOL_PROGRAMS[program].id, `${file}: owned by ${POOL_PROGRAMS[program].dex}`)
    const pool = decodeFixture(fixture)
    if (pool === null) {
      t.fail(`${file}: not decoded`)
      continue
    }
    const { data } = fixture.account
    t.equal(pool.program, program)
    t.same(pool.mints, OFFSETS[program].mints.map(offset => keyAt(data, offset)), `${file}: the mints at their offsets`)
    t.same(pool.vaults, OFFSETS[program].vaults.map(offset => keyAt(data, offset)), `${file}: the vaults at their offsets`)
    t.ok(namedBy(pool.mints[0], mints[0]) && namedBy(pool.mints[1], mints[1]), `${file}: ${mints.join(' / ')} as SOURCES.md names them (${pool.mints.join(' / ')})`)
    for (const [field, value] of Object.entries(published)) {
      if (field === 'pending0' || field === 'pending1') t.equal(pool.pending[Number(field.at(-1))], value, `${file}: ${field}`)
      else if (field === 'vault0' || field === 'vault1') t.equal(pool.vaults[Number(field.at(-1))], value, `${file}: ${field}`)
      else if (field === 'lpMint') t.ok(namedBy(String(pool.lpMint), String(value)), `${file}: LP mint ${String(pool.lpMint)}`)
      else t.equal(pool[field as 'lpRecorded' | 'lockedLp' | 'liquidity' | 'permanentLiquidity'], value, `${file}: ${field} as published`)
    }
  }
})

t.test('DAMM v1: the locked LP is the u64 after the stake key, and a part of the LP mint\'s real supply', async t => {
  // SOURCES.md says "total_locked_lp 0" for this pool; the bytes hold 13,501,271 at the offset both
  // published layouts give (after pool_type u8 @362 and stake @363, which is zero here). The test
  // holds the decoder to the bytes and to what the LP mint says, not to the note.
  const pool = decodeFixture(readAccountFile(`${DIR}meteora_damm_v1_pool-HcjZvfeS.json`))
  const { data } = readAccountFile(`${DIR}meteora_damm_v1_pool-HcjZvfeS.json`).account
  t.equal(data.length, 1387)
  t.same(data.subarray(363, 395), new Uint8Array(32), 'no stake pool')
  t.equal(pool?.lockedLp, u64At(data, 395))
  const lpMint = readAccountFile(`${DIR}meteora_damm_v1_lp_mint-B2uEs9zj.json`)
  t.equal(lpMint.address, pool?.lpMint, 'the LP mint the pool names is the captured one')
  const supply = getMintDecoder().decode(lpMint.account.data).supply
  t.equal(supply, 125221911091504n, 'its supply as SOURCES.md gives it')
  t.ok((pool?.lockedLp ?? supply + 1n) <= supply, `locked ${String(pool?.lockedLp)} of ${supply} LP`)
})

t.test('DAMM v1 on the local chain: the real pool, its vault LP accounts, Meteora vaults and their LP mints give each side', async t => {
  const files = ['meteora_damm_v1_pool-HcjZvfeS', 'meteora_damm_v1_lp_mint-B2uEs9zj', 'meteora_damm_v1_pool_vault_lp_token-HWnWnLvB', 'meteora_damm_v1_pool_vault_lp_token-GGG4DxkY',
    'meteora_vault-FERjPVNE', 'meteora_vault-8p1VKP45', 'meteora_vault_lp_mint-FZN7QZ8Z', 'meteora_vault_lp_mint-21bR3D4Q']
  const fixtures = files.map(name => readAccountFile(`${DIR}${name}.json`))
  const net = await startLocalnet({ accounts: fixtures })
  t.teardown(() => net.stop())
  const byName = (name: string) => fixtures[files.indexOf(name)].account.data
  // This test's own reading: the pool's vault LP (SPL token accounts), the vaults' totals and LP mints.
  const shares = ['meteora_damm_v1_pool_vault_lp_token-HWnWnLvB', 'meteora_damm_v1_pool_vault_lp_token-GGG4DxkY'].map(name => getTokenDecoder().decode(byName(name)).amount)
  const totals = ['meteora_vault-FERjPVNE', 'meteora_vault-8p1VKP45'].map(name => u64At(byName(name), 11))
  const supplies = ['meteora_vault_lp_mint-FZN7QZ8Z', 'meteora_vault_lp_mint-21bR3D4Q'].map(name => getMintDecoder().decode(byName(name)).supply)
  t.same(shares, [41924615981385n, 78979143181675n], 'the vault LP amounts SOURCES.md gives')
  t.same(supplies, [145998019653473n, 81482558527139n], 'the vault LP supplies SOURCES.md gives')
  const expected = [0, 1].map(side => shares[side] * totals[side] / supplies[side])
  const pool = fixtures[0].address
  const { facts } = await readPools(net.rpc, SOL as Address, [pool], new AbortController().signal)
  t.same(facts[0]?.reserves, expected, `SOL ${String(expected[0])}, mSOL ${String(expected[1])} lamports`)
  const body = poolBody(facts[0], SOL as Address, 9, null, 'mainnet-beta')
  t.has(body, { base_reserve: String(expected[0]), quote_reserve: String(expected[1]), lp_supply: '125221911091504' })
  t.ok(['FERjPVNEa7Udq8CEv68h6tPL46Tq7ieE49HrE2wea3XT', '8p1VKP45hhqq5iZG5fNGoi7ucme8nFLeChoDWNy7rWFm', 'FZN7QZ8ZUUAxMPfxYEYkH3cXUASzH8EqA6B4tyCL8f1j', '21bR3D4QR4GzopVco44PVMBXwHFpSYrbrdeNwdKk7umb'].every(account => body.evidence.includes(account as Address)), 'the vaults and their LP mints are the evidence')
})

t.test('an account of another program, or a pool read as another program, is no pool', async t => {
  const whirlpool = readAccountFile(`${DIR}orca_whirlpool-Czfq3xZZ.json`)
  t.equal(decodePool(whirlpool.address, POOL_PROGRAMS.raydium_clmm.id, Buffer.from(whirlpool.account.data)), null, 'a Whirlpool\'s bytes under CLMM\'s owner')
  const dammV2 = readAccountFile(`${DIR}meteora_damm_v2_pool-6CXXieC3.json`)
  t.equal(decodePool(dammV2.address, POOL_PROGRAMS.pumpswap.id, Buffer.from(dammV2.account.data)), null, 'DAMM v2 and PumpSwap share a discriminator: the size tells them apart')
  const lpMint = readAccountFile(`${DIR}meteora_damm_v1_lp_mint-B2uEs9zj.json`)
  t.equal(decodeFixture(lpMint), null, 'an SPL mint is not a pool')
})

t.test('pump.fun: both curve layouts and the Global account, as published', async t => {
  const current = readAccountFile(`${DIR}pumpfun_bonding_curve-623TpUDc.json`)
  t.equal(current.account.data.length, 150, 'the layout with the creator')
  t.match(decodeCurve(current.account), { complete: false, realSolReserves: 2485430n, realTokenReserves: 793011112000000n })
  t.equal(keyAt(current.account.data, 49), 'CkdtUhQdH2sHXJYTJTNFbF1K5W33WVgVHG7zffaMkEmv', 'the creator follows the fields read')
  // Kept as the getAccountInfo answer it was (the address was not recorded).
  const legacy = JSON.parse(readFileSync(`${DIR}pumpfun_bonding_curve-unknown_pubkey.getAccountInfo.json`, 'utf8')) as { result: { value: { data: [string, string], owner: Address } } }
  const legacyData = new Uint8Array(Buffer.from(legacy.result.value.data[0], 'base64'))
  t.equal(legacyData.length, 49, 'the old layout')
  t.match(decodeCurve({ owner: legacy.result.value.owner, data: legacyData }), { complete: false, realSolReserves: 72319932n, realTokenReserves: 790519577927421n })

  const global = readAccountFile(`${DIR}pumpfun_global-4wTV1Ymi.json`)
  const initial = decodeInitialRealTokens(global.account)
  t.equal(initial, u64At(global.account.data, 89))
  t.ok(initial !== null && initial >= 793011112000000n, `initial_real_token_reserves ${String(initial)} is at least what the curves still hold`)
  t.equal(decodeCurve(global.account), null, 'Global is not a curve')
  t.equal(decodeInitialRealTokens(current.account), null, 'a curve is not Global')
})

t.test('a real DAMM v2 pool on the local chain: found by getProgramAccounts, 90.09% of its liquidity locked for ever', async t => {
  const fixture = readAccountFile(`${DIR}meteora_damm_v2_pool-6CXXieC3.json`)
  const net = await startLocalnet({ accounts: [fixture] })
  t.teardown(() => net.stop())
  const data = fixture.account.data
  const [tokenMint, quoteMint] = [keyAt(data, 168), keyAt(data, 200)]
  await net.createMint({ address: tokenMint, decimals: 6, freezeAuthority: null })
  await net.createMint({ address: quoteMint, decimals: 9 })
  // The vaults the pool names, written here with balances this test chooses.
  const authority = (await generateKeyPairSigner()).address
  for (const [offset, mint, amount] of [[232, tokenMint, 123_456_789n], [264, quoteMint, 4_200_000_000n]] as const) {
    const token = getTokenEncoder().encode({ mint, owner: authority, amount, delegate: none(), state: AccountState.Initialized, isNative: none(), delegatedAmount: 0n, closeAuthority: none() })
    net.setAccount(keyAt(data, offset), { lamports: 10_000_000n, data: new Uint8Array(token), owner: TOKEN_PROGRAM_ADDRESS })
  }
  const input: PartInput = {
    mint: tokenMint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
    decimals: 6,
    supply: 1_000_000_000_000n,
    mintAuthority: null,
    freezeAuthority: null,
    slot: 1n,
    holders: Promise.resolve({ available: false, reason: 'not read' }),
    market: Promise.resolve({ state: 'unavailable' as const, reason: 'not read' }),
    signal: new AbortController().signal
  }
  const { fields, findings } = await createLiquidityPart({ rpc: net.rpc, network: 'mainnet-beta' }).read(input)
  const pool = fields.liquidity?.pools.find(entry => entry.address === fixture.address)
  t.ok(pool !== undefined, 'the real pool is found by the search')
  t.has(pool, { program: POOL_PROGRAMS.meteora_damm_v2.id, base_mint: tokenMint, quote_mint: quoteMint, base_reserve: '123456789', quote_reserve: '4200000000', lp_model: 'concentrated' })
  t.equal(Math.round((pool?.lp_locked_share ?? 0) * 10_000) / 100, 90.09, 'the permanently locked share SOURCES.md gives')
  t.same(findings, [{ code: 'LP_UNLOCKED', params: { percent: '9.91%', pool: fixture.address, dex: 'Meteora DAMM v2' } }], 'the 9.91% its providers can withdraw')
})
