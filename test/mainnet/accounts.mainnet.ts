// The analysis of real mainnet accounts (<fixtures>/mainnet-accounts, sources in its SOURCES.md),
// loaded into the local chain as `npm run localnet -- --account-dir` does, checked field by field
// against the bytes as this test decodes them with the token programs' own clients.
import t from 'tap'
import {
  addDecoderSizePrefix,
  generateKeyPairSigner,
  getAddressDecoder,
  getStructDecoder,
  getU32Decoder,
  getU8Decoder,
  getUtf8Decoder,
  unwrapOption,
  type Address
} from '@solana/kit'
import { getMintDecoder as getTokenMintDecoder, getTokenDecoder } from '@solana-program/token'
import { getMintDecoder as getToken2022MintDecoder } from '@solana-program/token-2022'
import { readAccountDir, readAccountFile, startLocalnet } from '@token-merchant/localnet'
import { createTokenAnalyzer } from '../../lib/token-analysis/analyze-token.js'
import type { TokenAnalysisBody } from '../../schemas/token-analysis.js'
import { mainnetFixtures } from './fixtures-folder.js'

const DIR = `${mainnetFixtures('mainnet-accounts')}/`
const fixtures = readAccountDir(DIR)
const bytesOf = (name: string) => readAccountFile(`${DIR}${name}`).account.data

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address
const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo' as Address
const SILLY = '7EYnhQoR9YM3N7UoaKRoA44Uy8JeaZV3qyouov87awMs' as Address
const WSOL = 'So11111111111111111111111111111111111111112' as Address

const net = await startLocalnet({ accounts: fixtures })
t.teardown(() => net.stop())
// The bytes are mainnet's: analysed as mainnet-beta, whose issuer table they belong to.
const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'mainnet-beta', cacheTtlMs: 0 })
const codes = (analysis: TokenAnalysisBody) => analysis.risks.map(risk => risk.code).sort()
const check = (analysis: TokenAnalysisBody, name: string) => analysis.checks.find(entry => entry.check === name)

/** Metaplex MetadataV1 head (key, update authority, mint, name, symbol, uri), decoded here independently of the service. */
const metaplexHead = getStructDecoder([
  ['key', getU8Decoder()],
  ['updateAuthority', getAddressDecoder()],
  ['mint', getAddressDecoder()],
  ['name', addDecoderSizePrefix(getUtf8Decoder(), getU32Decoder())],
  ['symbol', addDecoderSizePrefix(getUtf8Decoder(), getU32Decoder())],
  ['uri', addDecoderSizePrefix(getUtf8Decoder(), getU32Decoder())]
])
const unpad = (text: string) => text.replace(/\0+$/, '')

t.test('USDC: mint, authorities, Metaplex metadata and the ten captured holders, as the bytes say', async t => {
  const mint = getTokenMintDecoder().decode(bytesOf('usdc_mint-EPjFWdd5.json'))
  const analysis = await analyzer.analyze(USDC)
  t.equal(analysis.decimals, mint.decimals)
  t.equal(analysis.supply, mint.supply.toString())
  t.same(analysis.authorities.mint_authority, unwrapOption(mint.mintAuthority))
  t.same(analysis.authorities.freeze_authority, unwrapOption(mint.freezeAuthority))
  t.equal(analysis.authorities.freeze_authority, '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar', 'USDC\'s real freeze authority')
  t.equal(analysis.token_program, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
  t.same(analysis.extensions, [])

  const head = metaplexHead.decode(bytesOf('usdc_metaplex_metadata-5x38Kp4h.json'))
  t.same(analysis.metadata, {
    source: 'metaplex',
    address: '5x38Kp4hvdomTCnCrAny4UtMUt5rQBdB6px2K1Ui45Wq',
    name: unpad(head.name),
    symbol: unpad(head.symbol),
    uri: unpad(head.uri),
    update_authority: head.updateAuthority,
    mutable: true
  })
  t.equal(head.mint, USDC)

  const held = fixtures
    .filter(fixture => fixture.address !== USDC && fixture.account.data.length === 165)
    .map(fixture => ({ address: fixture.address, token: getTokenDecoder().decode(fixture.account.data) }))
    .filter(({ token }) => token.mint === USDC && token.amount > 0n)
    .sort((a, b) => (a.token.amount === b.token.amount ? 0 : a.token.amount > b.token.amount ? -1 : 1))
  t.equal(held.length, 10)
  t.same(analysis.holders.accounts.map(account => [account.address, account.amount]), held.map(({ address, token }) => [address, token.amount.toString()]))
  const top = held.reduce((sum, { token }) => sum + token.amount, 0n)
  t.equal(analysis.holders.top10_share, Math.round(Number(top * 1_000_000n * 10n / mint.supply) / 10) / 1_000_000, 'top-10 share of the supply')

  t.match(analysis.issuer, { name: 'Circle', asset: 'USDC', source: /developers\.circle\.com/ })
  // The authorities' own accounts were not captured: on this chain nothing exists at their addresses.
  t.same(analysis.authorities.powers.map(power => [power.power, power.address, power.kind, power.account_owner]), [
    ['mint', unwrapOption(mint.mintAuthority), 'wallet', null],
    ['freeze', unwrapOption(mint.freezeAuthority), 'wallet', null],
    ['metadata_update', head.updateAuthority, 'wallet', null]
  ])
  t.match(analysis.risks.find(risk => risk.code === 'FREEZE_AUTHORITY_ACTIVE'), { weight: 5, message: /Freeze authority 7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar can freeze .* Circle, the known issuer, so it weighs 5 instead of 25\. 7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar is a wallet/ })
})

t.test('PYUSD: every Token-2022 extension and its values, and the in-mint metadata', async t => {
  const mint = getToken2022MintDecoder().decode(bytesOf('pyusd_mint-2b1kV6Dk.json'))
  const extensions = unwrapOption(mint.extensions) ?? []
  const analysis = await analyzer.analyze(PYUSD)
  t.equal(analysis.token_program, 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb')
  t.equal(analysis.supply, mint.supply.toString())
  t.equal(analysis.decimals, mint.decimals)
  t.equal(analysis.authorities.mint_authority, unwrapOption(mint.mintAuthority))
  t.equal(analysis.authorities.freeze_authority, unwrapOption(mint.freezeAuthority))
  t.equal(analysis.extensions.length, extensions.length, `${extensions.length} extensions`)
  const none = (value: string) => value === '11111111111111111111111111111111' ? null : value
  for (const [i, extension] of extensions.entries()) {
    const reported = analysis.extensions[i]
    switch (extension.__kind) {
      case 'MintCloseAuthority':
        t.same(reported, { type: 'mint_close_authority', close_authority: extension.closeAuthority }); break
      case 'PermanentDelegate':
        t.same(reported, { type: 'permanent_delegate', delegate: extension.delegate }); break
      case 'TransferFeeConfig':
        t.same(reported, {
          type: 'transfer_fee',
          older_fee: { epoch: Number(extension.olderTransferFee.epoch), basis_points: extension.olderTransferFee.transferFeeBasisPoints, maximum_fee: extension.olderTransferFee.maximumFee.toString() },
          newer_fee: { epoch: Number(extension.newerTransferFee.epoch), basis_points: extension.newerTransferFee.transferFeeBasisPoints, maximum_fee: extension.newerTransferFee.maximumFee.toString() },
          config_authority: none(extension.transferFeeConfigAuthority),
          withdraw_withheld_authority: none(extension.withdrawWithheldAuthority),
          withheld_amount: extension.withheldAmount.toString()
        }); break
      case 'ConfidentialTransferMint':
        t.same(reported, { type: 'confidential_transfer', authority: unwrapOption(extension.authority), auto_approve_new_accounts: extension.autoApproveNewAccounts, auditor_elgamal_pubkey: unwrapOption(extension.auditorElgamalPubkey) }); break
      case 'ConfidentialTransferFee':
        t.same(reported, { type: 'confidential_transfer_fee', authority: unwrapOption(extension.authority), harvest_to_mint_enabled: extension.harvestToMintEnabled }); break
      case 'TransferHook':
        t.same(reported, { type: 'transfer_hook', program_id: none(extension.programId), authority: none(extension.authority) }); break
      case 'MetadataPointer':
        t.same(reported, { type: 'metadata_pointer', authority: unwrapOption(extension.authority), metadata_address: unwrapOption(extension.metadataAddress) }); break
      case 'TokenMetadata':
        t.same(reported, { type: 'token_metadata', update_authority: unwrapOption(extension.updateAuthority), name: extension.name, symbol: extension.symbol, uri: extension.uri, additional_metadata: [] })
        t.same(analysis.metadata, { source: 'token-2022', address: PYUSD, name: extension.name, symbol: extension.symbol, uri: extension.uri, update_authority: unwrapOption(extension.updateAuthority), mutable: true })
        break
      default:
        t.fail(`PYUSD has an extension this test does not expect: ${extension.__kind}`)
    }
  }
  // Every power the mint gives, each with its holder's kind.
  t.same(analysis.authorities.powers.map(power => power.power), ['mint', 'freeze', 'close', 'permanent_delegate', 'transfer_fee_config', 'transfer_fee_withdraw', 'confidential_transfer', 'transfer_hook', 'metadata_pointer', 'metadata_update'])
  t.ok(analysis.authorities.powers.every(power => power.kind === 'wallet' && power.evidence.startsWith('On the ed25519 curve')))
  t.match(analysis.issuer, { name: 'Paxos (for PayPal)', asset: 'PYUSD' })
})

t.test('SILLY: both authorities revoked, a Metaplex name, nothing minted since', async t => {
  const mint = getTokenMintDecoder().decode(bytesOf('silly_mint-7EYnhQoR.json'))
  const head = metaplexHead.decode(bytesOf('silly_metaplex_metadata-7BajpcYg.json'))
  const analysis = await analyzer.analyze(SILLY)
  t.equal(unwrapOption(mint.mintAuthority), null)
  t.equal(unwrapOption(mint.freezeAuthority), null)
  t.match(analysis.authorities, { mint_authority_disabled: true, freeze_authority_disabled: true })
  t.equal(analysis.supply, mint.supply.toString())
  t.match(analysis.metadata, { source: 'metaplex', name: unpad(head.name), symbol: unpad(head.symbol), uri: unpad(head.uri), update_authority: head.updateAuthority })
  t.notOk('issuer' in analysis)
  t.notOk(codes(analysis).includes('MINT_AUTHORITY_ACTIVE'))
})

t.test('wrapped SOL: no mint authority and no supply to judge, said as not applicable', async t => {
  const mint = getTokenMintDecoder().decode(bytesOf('wsol_mint-So111111.json'))
  t.equal(mint.supply, 0n, 'the native mint\'s supply field is 0 on mainnet')
  const analysis = await analyzer.analyze(WSOL)
  t.notOk(codes(analysis).includes('TINY_SUPPLY'))
  t.match(check(analysis, 'mint_authority'), { status: 'not_applicable', reason: /native mint \(wrapped SOL\) has no mint authority/ })
  t.match(check(analysis, 'supply'), { status: 'not_applicable', reason: /supply field is not its supply/ })
  t.same(analysis.authorities.powers, [])
})

t.test('the issuer rule: a known issuer\'s powers weigh its issuer weight; the same bytes elsewhere weigh in full', async t => {
  const usdc = await analyzer.analyze(USDC)
  const pyusd = await analyzer.analyze(PYUSD)
  for (const [name, file] of [['USDC', 'usdc_mint-EPjFWdd5.json'], ['PYUSD', 'pyusd_mint-2b1kV6Dk.json']] as const) {
    const copy = (await generateKeyPairSigner()).address
    const { account } = readAccountFile(`${DIR}${file}`)
    net.setAccount(copy, account)
    const lookalike = await analyzer.analyze(copy)
    const known = name === 'USDC' ? usdc : pyusd
    t.notOk('issuer' in lookalike, `${name}'s bytes at another address name no issuer`)
    t.ok(lookalike.risk_score > known.risk_score, `${name}: ${known.risk_score} known, ${lookalike.risk_score} unknown`)
  }
  t.ok(usdc.risk_score < 50 && pyusd.risk_score < 50, `regulated stablecoins stay below 50: USDC ${usdc.risk_score}, PYUSD ${pyusd.risk_score}`)
  t.ok(pyusd.risks.filter(risk => risk.message.includes('the known issuer')).every(risk => risk.weight <= 5))
})
