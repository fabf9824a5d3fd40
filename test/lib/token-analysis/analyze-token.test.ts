import t from 'tap'
import { address, createSolanaRpc, type Address } from '@solana/kit'
import { AuthorityType, getPauseInstruction, getSetAuthorityInstruction } from '@solana-program/token-2022'
import { startLocalnet } from '@token-merchant/localnet'
import { AppError } from '../../../lib/errors/app-error.js'
import { knownIssuer } from '../../../lib/token-analysis/known-issuers.js'
import { createTokenAnalyzer } from '../../../lib/token-analysis/analyze-token.js'
import { findMetaplexMetadataAddress, METAPLEX_METADATA_PROGRAM } from '../../../lib/token-analysis/metaplex-metadata.js'
import { metaplexAccount } from '../../fixtures/metaplex-account.js'
import type { TokenAnalysisBody } from '../../../schemas/token-analysis.js'

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
const MAINNET_USDC = address('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')
const HOOK_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr')

const net = await startLocalnet()
t.teardown(() => net.stop())
const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0 })
const analyze = (mint: Address) => analyzer.analyze(mint)
const codes = (analysis: TokenAnalysisBody) => analysis.risks.map(risk => risk.code).sort()

/** One new wallet per amount, each minted its amount (a real ATA-create and mint-to each). */
async function distribute (mint: Address, amounts: bigint[]): Promise<void> {
  for (const amount of amounts) await net.mintTo(mint, (await net.createWallet(0n)).address, amount)
}

async function revokeMintAuthority (mint: Address, programAddress: Address): Promise<void> {
  await net.sendInstructions([getSetAuthorityInstruction(
    { owned: mint, owner: net.authority, authorityType: AuthorityType.MintTokens, newAuthority: null },
    { programAddress }
  )], [net.authority])
}

async function rejection (promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('expected a rejection')
}

// One SPL Token mint, everything revoked, 25 equal holders.
const widelyHeld = await net.createMint({ decimals: 6, freezeAuthority: null })
await distribute(widelyHeld, Array.from({ length: 25 }, () => 4_000_000n))
await revokeMintAuthority(widelyHeld, address(TOKEN_PROGRAM))

// One with live mint and freeze authorities and one holder owning 95%.
const freezer = await net.createWallet(0n)
const concentrated = await net.createMint({ decimals: 6, freezeAuthority: freezer.address })
await distribute(concentrated, [95_000_000n, 5_000_000n])

t.test('everything revoked and widely held: a low score and the evidence behind it', async t => {
  const analysis = await analyze(widelyHeld)
  t.equal(analysis.risk_score, 3)
  t.same(codes(analysis), ['METADATA_MISSING'])
  t.same(analysis.authorities, { mint_authority_disabled: true, freeze_authority_disabled: true, powers: [] })
  t.match(analysis.checks.find(entry => entry.check === 'authority_holders'), { status: 'not_applicable', reason: 'Nobody holds any power over the token.' })
  t.match(analysis, { mint: widelyHeld, token_program: TOKEN_PROGRAM, decimals: 6, supply: '100000000', extensions: [], metadata: null })
  t.match(analysis.holders, { available: true, largest_share: 0.04, top10_share: 0.4, holder_count: null })
  t.equal(analysis.holders.accounts.length, 20, 'getTokenLargestAccounts lists 20 of the 25')
  t.same(analysis.holders.accounts[0], { address: analysis.holders.accounts[0].address, amount: '4000000', share: 0.04 })
  t.equal(typeof analysis.slot, 'number')
})

t.test('live mint and freeze authorities, one holder at 95%: a high score, main risks first', async t => {
  const analysis = await analyze(concentrated)
  t.same(analysis.authorities, {
    mint_authority_disabled: false,
    freeze_authority_disabled: false,
    mint_authority: net.authority.address,
    freeze_authority: freezer.address,
    powers: [
      { power: 'mint', address: net.authority.address, kind: 'wallet', account_owner: '11111111111111111111111111111111', evidence: 'On the ed25519 curve: one private key signs for it (its account is owned by System Program).' },
      { power: 'freeze', address: freezer.address, kind: 'wallet', account_owner: null, evidence: 'On the ed25519 curve: one private key signs for it (no account exists there).' }
    ]
  })
  t.match(analysis.risks.find(risk => risk.code === 'MINT_AUTHORITY_ACTIVE'), { weight: 30, message: `${net.authority.address} is a wallet (one private key).` })
  t.match(analysis.holders, { available: true, largest_share: 0.95, top10_share: 1, holder_count: 2 })
  t.same(analysis.holders.accounts.map(holder => holder.amount), ['95000000', '5000000'])
  t.same(codes(analysis), ['FEW_HOLDERS', 'FREEZE_AUTHORITY_ACTIVE', 'LARGEST_HOLDER_MAJORITY', 'METADATA_MISSING', 'MINT_AUTHORITY_ACTIVE', 'TOP10_CONCENTRATED'])
  t.equal(analysis.risk_score, 100)
  t.match(analysis.summary, new RegExp(`^Mint authority ${net.authority.address} can create new tokens.* One token account, \\w+, holds 95\\.00% of the supply\\.`))
  t.ok((await analyze(widelyHeld)).risk_score < analysis.risk_score)
})

t.test('each Token-2022 extension on its own, against the same mint without it', async t => {
  // Fixed supply of zero: no holders, so every difference to the baseline is the extension's.
  const plain = await analyze(await net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null }))
  t.same(codes(plain), ['METADATA_MISSING', 'TINY_SUPPLY'])
  t.equal(plain.risk_score, 13)
  t.equal(plain.token_program, TOKEN_2022_PROGRAM)

  const delegate = (await net.createWallet(0n)).address
  const cases = [
    { name: 'transfer fee 0.5%', extensions: { transferFee: { basisPoints: 50, maximumFee: 1_000_000n } }, added: ['TRANSFER_FEE_LOW', 'TRANSFER_FEE_MUTABLE'], delta: 15 },
    { name: 'transfer fee 3%', extensions: { transferFee: { basisPoints: 300, maximumFee: 50_000_000n } }, added: ['TRANSFER_FEE', 'TRANSFER_FEE_MUTABLE'], delta: 25 },
    { name: 'transfer fee 15%', extensions: { transferFee: { basisPoints: 1500, maximumFee: 50_000_000n } }, added: ['TRANSFER_FEE_HIGH', 'TRANSFER_FEE_MUTABLE'], delta: 40 },
    { name: 'permanent delegate', extensions: { permanentDelegate: delegate }, added: ['PERMANENT_DELEGATE'], delta: 35 },
    { name: 'transfer hook', extensions: { transferHook: HOOK_PROGRAM }, added: ['TRANSFER_HOOK'], delta: 20 },
    { name: 'non-transferable', extensions: { nonTransferable: true as const }, added: ['NON_TRANSFERABLE'], delta: 40 },
    { name: 'mint close authority', extensions: { mintCloseAuthority: delegate }, added: ['MINT_CLOSE_AUTHORITY'], delta: 3 },
    { name: 'pausable', extensions: { pausable: net.authority.address }, added: ['PAUSABLE'], delta: 15 }
  ]
  const scores: Record<string, number> = {}
  for (const { name, extensions, added, delta } of cases) {
    const analysis = await analyze(await net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null, extensions }))
    t.same(codes(analysis), [...codes(plain), ...added].sort(), `${name}: findings`)
    t.equal(analysis.risk_score, plain.risk_score + delta, `${name}: score`)
    t.equal(analysis.extensions.length, 1, `${name}: one extension`)
    scores[name] = analysis.risk_score
  }
  t.ok(scores['transfer fee 0.5%'] < scores['transfer fee 3%'] && scores['transfer fee 3%'] < scores['transfer fee 15%'], 'bigger fees weigh more')
  t.ok(scores['mint close authority'] < scores.pausable && scores.pausable < scores['transfer hook'] && scores['transfer hook'] < scores['permanent delegate'])
})

t.test('extension settings are reported as set on chain', async t => {
  const fee = await analyze(await net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null, extensions: { transferFee: { basisPoints: 300, maximumFee: 50_000_000n } } }))
  t.same(fee.extensions, [{
    type: 'transfer_fee',
    older_fee: { epoch: 0, basis_points: 300, maximum_fee: '50000000' },
    newer_fee: { epoch: 0, basis_points: 300, maximum_fee: '50000000' },
    config_authority: net.authority.address,
    withdraw_withheld_authority: net.authority.address,
    withheld_amount: '0'
  }])
  t.match(fee.risks.find(risk => risk.code === 'TRANSFER_FEE')?.message, /3% \(at most 50 tokens per transfer\)/)

  const hook = await analyze(await net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null, extensions: { transferHook: HOOK_PROGRAM } }))
  t.same(hook.extensions, [{ type: 'transfer_hook', program_id: HOOK_PROGRAM, authority: net.authority.address }])

  const frozen = await analyze(await net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null, freezeAuthority: net.authority.address, extensions: { defaultAccountState: 'frozen' } }))
  t.same(frozen.extensions, [{ type: 'default_account_state', state: 'frozen' }])
  t.same(codes(frozen), ['DEFAULT_ACCOUNT_STATE_FROZEN', 'FREEZE_AUTHORITY_ACTIVE', 'METADATA_MISSING', 'TINY_SUPPLY'])

  const pausable = await net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null, extensions: { pausable: net.authority.address } })
  t.same((await analyze(pausable)).extensions, [{ type: 'pausable', authority: net.authority.address, paused: false }])
  await net.sendInstructions([getPauseInstruction({ mint: pausable, authority: net.authority })], [net.authority])
  const paused = await analyze(pausable)
  t.same(paused.extensions, [{ type: 'pausable', authority: net.authority.address, paused: true }])
  t.same(codes(paused), ['METADATA_MISSING', 'PAUSED', 'TINY_SUPPLY'])
  t.match(paused.summary, /^The token is paused right now/)
})

t.test('Token-2022 metadata: mutable weighs more than none, none more than immutable', async t => {
  const metadata = { name: 'Local Coin', symbol: 'LOC', uri: 'https://example.com/loc.json' }
  const updater = (await net.createWallet(0n)).address
  const create = (updateAuthority: Address | null) =>
    net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null, extensions: { metadata: { ...metadata, updateAuthority } } })
  const mutable = await analyze(await create(updater))
  // No update authority, but the metadata pointer can still be moved to other metadata.
  const movable = await analyze(await create(null))
  const immutableMint = await create(null)
  await net.sendInstructions([getSetAuthorityInstruction(
    { owned: immutableMint, owner: net.authority, authorityType: AuthorityType.MetadataPointer, newAuthority: null },
    { programAddress: address(TOKEN_2022_PROGRAM) }
  )], [net.authority])
  const immutable = await analyze(immutableMint)
  const none = await analyze(await net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null }))

  t.match(mutable.metadata, { source: 'token-2022', ...metadata, update_authority: updater, mutable: true })
  t.match(mutable.risks.find(risk => risk.code === 'MUTABLE_METADATA')?.message,
    `Update authority ${updater} and metadata pointer authority ${net.authority.address} can change the token's name`)
  t.match(movable.metadata, { update_authority: null, mutable: true })
  t.match(movable.risks.find(risk => risk.code === 'MUTABLE_METADATA')?.message, `Metadata pointer authority ${net.authority.address} can change`)
  t.same(immutable.metadata, { source: 'token-2022', address: immutableMint, ...metadata, update_authority: null, mutable: false })
  t.same(immutable.extensions.map(extension => extension.type), ['metadata_pointer', 'token_metadata'])
  t.match(immutable.extensions[0], { type: 'metadata_pointer', authority: null, metadata_address: immutableMint })
  t.same(codes(mutable), ['MUTABLE_METADATA', 'TINY_SUPPLY'])
  t.same(codes(immutable), ['TINY_SUPPLY'])
  t.ok(immutable.risk_score < none.risk_score && none.risk_score < mutable.risk_score, `${immutable.risk_score} < ${none.risk_score} < ${mutable.risk_score}`)
})

t.test('a known issuer is named and weighed differently, never whitelisted', async t => {
  const freeze = (await net.createWallet(0n)).address
  const usdc = await analyze(await net.createMint({ address: MAINNET_USDC, decimals: 6, freezeAuthority: freeze }))
  const lookalike = await analyze(await net.createMint({ decimals: 6, freezeAuthority: freeze }))
  t.match(usdc.issuer, { name: 'Circle', asset: 'USDC' })
  t.notOk('issuer' in lookalike)
  t.same(usdc.authorities, lookalike.authorities, 'the same powers are reported')
  t.same(codes(usdc), [...codes(lookalike), 'CENTRAL_ISSUER'].sort())
  t.equal(usdc.risk_score, 5 + 5 + 10 + 3 + 10)
  t.equal(lookalike.risk_score, 30 + 25 + 3 + 10)
  t.match(usdc.summary, /Circle/)
})

t.test('issuers are known per cluster, and the answer names the cluster it was read from', async t => {
  const usdcOnLocal = await analyze(MAINNET_USDC)
  t.equal(usdcOnLocal.network, 'localnet')
  // The same chain presented as devnet: mainnet USDC's address names no issuer there.
  const asDevnet = createTokenAnalyzer({ rpc: net.rpc, network: 'devnet', cacheTtlMs: 0 })
  const usdcOnDevnet = await asDevnet.analyze(MAINNET_USDC)
  t.equal(usdcOnDevnet.network, 'devnet')
  t.notOk('issuer' in usdcOnDevnet, 'mainnet USDC is not a devnet issuer')
  t.notOk(codes(usdcOnDevnet).includes('CENTRAL_ISSUER'))
  t.match(knownIssuer('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', 'devnet'), { name: 'Circle', asset: 'USDC (devnet)' })
  t.equal(knownIssuer('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', 'mainnet-beta'), undefined)
  t.equal(knownIssuer('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 'testnet'), undefined)
  t.equal(knownIssuer('toString', 'mainnet-beta'), undefined, 'no inherited property is an issuer')
})

t.test('ensureNetwork runs before every read, and its refusal stops the read', async t => {
  let verified = false
  const guarded = createTokenAnalyzer({
    rpc: net.rpc,
    network: 'localnet',
    cacheTtlMs: 0,
    ensureNetwork: async () => { if (!verified) throw Object.assign(new Error('not verified'), { code: 'RPC_UNAVAILABLE' }) }
  })
  net.resetStats()
  await t.rejects(guarded.analyze(MAINNET_USDC), { code: 'RPC_UNAVAILABLE' })
  t.same(net.stats(), {}, 'no RPC read before the network is verified')
  verified = true
  t.equal((await guarded.analyze(MAINNET_USDC)).mint, MAINNET_USDC)
})

t.test('accounts that are not mints, and addresses with no account', async t => {
  const wallet = await net.createWallet()
  t.match(await rejection(analyze(wallet.address)), { statusCode: 422, code: 'NOT_A_TOKEN_MINT', message: /owned by 11111111111111111111111111111111/ })
  const tokenAccount = await net.createAta(widelyHeld, wallet.address)
  t.match(await rejection(analyze(tokenAccount)), { statusCode: 422, code: 'NOT_A_TOKEN_MINT' })
  const nobody = (await net.createWallet(0n)).address
  t.match(await rejection(analyze(nobody)), { statusCode: 404, code: 'MINT_NOT_FOUND' })
})

t.test('an RPC that refuses getTokenLargestAccounts still gets an answer, marked and explained', async t => {
  t.teardown(() => net.failMethod('getTokenLargestAccounts', null))
  const full = await analyze(widelyHeld)

  net.failMethod('getTokenLargestAccounts', { code: -32010, message: `${TOKEN_PROGRAM} excluded from account secondary indexes; this RPC method unavailable for key` })
  const excluded = await analyze(widelyHeld)
  t.same(excluded.holders, {
    available: false,
    reason: 'Holder data is unavailable: the RPC node does not index the token accounts of this program (JSON-RPC error -32010).',
    largest_share: null,
    top10_share: null,
    holder_count: null,
    accounts: []
  })
  t.same(codes(excluded), ['HOLDERS_UNAVAILABLE', 'METADATA_MISSING'])
  t.equal(excluded.risk_score, full.risk_score + 10)
  t.match(excluded.summary, /Holder data is unavailable: .*Concentration risks are unknown, not absent\./)
  t.match(excluded.checks.find(entry => entry.check === 'holders'), { status: 'unavailable', source: 'chain', reason: /does not index/, risks: ['HOLDERS_UNAVAILABLE'] })
  t.same({ ...excluded, holders: full.holders, risks: full.risks, risk_score: full.risk_score, summary: full.summary, slot: full.slot, checks: full.checks }, full, 'the rest of the answer is unchanged')

  net.failMethod('getTokenLargestAccounts', { httpStatus: 429, retryAfter: 10 })
  const limited = await analyze(concentrated)
  t.match(limited.holders, { available: false, reason: /rate-limited the request \(HTTP 429\)/ })
  t.notOk(codes(limited).includes('LARGEST_HOLDER_MAJORITY'), 'unknown concentration is not reported as found')
  t.match(limited.summary, /HTTP 429/)
})

t.test('a failing getAccountInfo is 503 RPC_UNAVAILABLE with Retry-After', async t => {
  t.teardown(() => net.failMethod('getAccountInfo', null))
  net.failMethod('getAccountInfo', { httpStatus: 429, retryAfter: 7 })
  t.match(await rejection(analyze(widelyHeld)), { statusCode: 503, code: 'RPC_UNAVAILABLE', headers: { 'retry-after': '7' } })
  net.failMethod('getAccountInfo', { httpStatus: 502 })
  t.match(await rejection(analyze(widelyHeld)), { statusCode: 503, code: 'RPC_UNAVAILABLE', headers: { 'retry-after': /^\d+$/ } })
  const offline = createTokenAnalyzer({ rpc: createSolanaRpc('http://127.0.0.1:9'), network: 'localnet', cacheTtlMs: 0 })
  t.match(await rejection(offline.analyze(widelyHeld)), { statusCode: 503, code: 'RPC_UNAVAILABLE' })
})

t.test('same mint, same slot: the same answer; a new slot may differ', async t => {
  const first = await analyze(concentrated)
  const second = await analyze(concentrated)
  t.same(second, first)
  await distribute(concentrated, [1_000_000n])
  const later = await analyze(concentrated)
  t.ok(later.slot > first.slot)
  t.equal(later.supply, '101000000')
})

t.test('concurrent calls share one read; answers are reused for the TTL; failures are not', async t => {
  let clock = 0
  const cached = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 10_000, now: () => clock })
  net.resetStats()
  const answers = await Promise.all([cached.analyze(widelyHeld), cached.analyze(widelyHeld), cached.analyze(widelyHeld)])
  t.equal(answers[1], answers[0])
  t.equal(answers[2], answers[0])
  // One mint read, one Metaplex metadata read, the two holder reads.
  t.same(net.stats(), { getAccountInfo: 2, getTokenLargestAccounts: 1, getTokenSupply: 1 })
  clock = 9_999
  t.equal(await cached.analyze(widelyHeld), answers[0])
  t.equal(net.stats().getAccountInfo, 2, 'still within the TTL')
  clock = 10_000
  await cached.analyze(widelyHeld)
  t.equal(net.stats().getAccountInfo, 4, 'read again once it expired')

  t.teardown(() => net.failMethod('getAccountInfo', null))
  net.failMethod('getAccountInfo', { httpStatus: 503 })
  t.match(await rejection(cached.analyze(concentrated)), { code: 'RPC_UNAVAILABLE' })
  net.failMethod('getAccountInfo', null)
  t.match(await cached.analyze(concentrated), { mint: concentrated })
})

t.test('Metaplex metadata on the chain: mutable is a finding, immutable is not', async t => {
  for (const isMutable of [true, false]) {
    const mint = await net.createMint({ decimals: 6, mintAuthority: null, freezeAuthority: null })
    net.setAccount(await findMetaplexMetadataAddress(mint), {
      lamports: 5_616_720n,
      owner: METAPLEX_METADATA_PROGRAM,
      data: metaplexAccount({ updateAuthority: net.authority.address, mint, name: 'Metaplex Coin', symbol: 'MPC', uri: 'https://example.com/mpc.json', creators: [], isMutable })
    })
    const report = await analyze(mint)
    t.match(report.metadata, { source: 'metaplex', name: 'Metaplex Coin', symbol: 'MPC', update_authority: net.authority.address, mutable: isMutable })
    t.equal(report.risks.some(risk => risk.code === 'MUTABLE_METADATA'), isMutable, `MUTABLE_METADATA when mutable is ${isMutable}`)
    t.notOk(report.risks.some(risk => risk.code === 'METADATA_MISSING'))
  }
})

t.test('wrapped SOL (the native mint, which the local chain has from genesis as every cluster does: no authority, supply field 0): said as not applicable', async t => {
  const analysis = await analyze(address('So11111111111111111111111111111111111111112'))
  t.equal(analysis.supply, '0')
  t.notOk(codes(analysis).includes('TINY_SUPPLY'))
  t.match(analysis.checks.find(entry => entry.check === 'mint_authority'), { status: 'not_applicable', reason: /native mint \(wrapped SOL\) has no mint authority/ })
  t.match(analysis.checks.find(entry => entry.check === 'supply'), { status: 'not_applicable', reason: /supply field is not its supply/ })
  t.same(analysis.authorities.powers, [])
})
