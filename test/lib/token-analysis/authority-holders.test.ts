import t from 'tap'
import {
  address,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
  getU16Encoder,
  getU32Encoder,
  getU64Encoder,
  getUtf8Encoder,
  type Address,
  type KeyPairSigner
} from '@solana/kit'
import { getCreateAccountInstruction } from '@solana-program/system'
import { getInitializeMultisig2Instruction, getMultisigDecoder, getMultisigSize, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import { createHash } from 'node:crypto'
import { MEMO_V3_PROGRAM, startLocalnet } from '@token-merchant/localnet'
import { createTokenAnalyzer } from '../../../lib/token-analysis/analyze-token.js'
import { SQUADS_V4_PROGRAM } from '../../../lib/token-analysis/authority-accounts.js'
import type { TokenAnalysisBody } from '../../../schemas/token-analysis.js'

const net = await startLocalnet()
t.teardown(() => net.stop())
const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0 })
const risk = (analysis: TokenAnalysisBody, code: string) => analysis.risks.find(entry => entry.code === code)
const mintPower = (analysis: TokenAnalysisBody) => analysis.authorities.powers.find(power => power.power === 'mint')

/** A real SPL Token (or Token-2022) multisig: createAccount of 355 bytes, then InitializeMultisig2 with m of the signers. */
async function createMultisig (m: number, signers: KeyPairSigner[], programAddress: Address = TOKEN_PROGRAM_ADDRESS): Promise<Address> {
  const account = await generateKeyPairSigner()
  const space = getMultisigSize()
  const lamports = await net.rpc.getMinimumBalanceForRentExemption(BigInt(space)).send()
  await net.sendInstructions([
    getCreateAccountInstruction({ payer: net.authority, newAccount: account, lamports, space, programAddress }),
    getInitializeMultisig2Instruction({ multisig: account.address, m, signers: signers.map(signer => signer.address) }, { programAddress })
  ], [net.authority, account])
  return account.address
}

const concat = (parts: Array<ArrayLike<number>>) => Uint8Array.from(parts.flatMap(part => Array.from(part)))

const wallets = await Promise.all(Array.from({ length: 5 }, () => generateKeyPairSigner()))

t.test('an SPL Token multisig mint authority, created on chain: m of n and its signers, as its account says', async t => {
  const twoOfThree = await createMultisig(2, wallets.slice(0, 3))
  const bytes = (await net.rpc.getAccountInfo(twoOfThree, { encoding: 'base64' }).send()).value
  const decoded = getMultisigDecoder().decode(Buffer.from(bytes!.data[0], 'base64'))
  t.equal(decoded.m, 2, 'the test reads the account itself: m = 2')

  const analysis = await analyzer.analyze(await net.createMint({ decimals: 6, mintAuthority: twoOfThree, freezeAuthority: null }))
  t.same(mintPower(analysis), {
    power: 'mint',
    address: twoOfThree,
    kind: 'token_multisig',
    account_owner: TOKEN_PROGRAM_ADDRESS,
    program_name: 'SPL Token',
    threshold: decoded.m,
    signers: decoded.signers.slice(0, decoded.n),
    evidence: `A multisig account of SPL Token: 2 of its 3 signers must sign (${decoded.signers.slice(0, 3).join(', ')}).`
  })
  t.match(risk(analysis, 'MINT_AUTHORITY_ACTIVE'), { weight: 15, message: new RegExp(`${twoOfThree} is a 2-of-3 SPL Token multisig, so it weighs 15 instead of 30\\.$`) })
  t.match(analysis.checks.find(entry => entry.check === 'authority_holders'), { status: 'passed', source: 'chain' })

  // 1 of 2: each signer alone holds the power, as one key does.
  const oneOfTwo = await createMultisig(1, wallets.slice(3, 5))
  const single = await analyzer.analyze(await net.createMint({ decimals: 6, mintAuthority: oneOfTwo, freezeAuthority: null }))
  t.match(mintPower(single), { kind: 'token_multisig', threshold: 1, signers: wallets.slice(3, 5).map(wallet => wallet.address) })
  t.match(risk(single, 'MINT_AUTHORITY_ACTIVE'), { weight: 30, message: /is a 1-of-2 SPL Token multisig\.$/ })
  t.ok(single.risk_score > analysis.risk_score, 'a 2-of-3 multisig weighs less than a 1-of-2')
})

t.test('a Token-2022 multisig as freeze and pause authority', async t => {
  const multisig = await createMultisig(3, wallets, TOKEN_2022_PROGRAM_ADDRESS)
  const analysis = await analyzer.analyze(await net.createMint({ decimals: 6, program: 'token-2022', mintAuthority: null, freezeAuthority: multisig, extensions: { pausable: multisig } }))
  for (const power of ['freeze', 'pause']) {
    t.match(analysis.authorities.powers.find(entry => entry.power === power), { kind: 'token_multisig', program_name: 'Token-2022', threshold: 3, signers: wallets.map(wallet => wallet.address) }, power)
  }
  t.equal(risk(analysis, 'FREEZE_AUTHORITY_ACTIVE')?.weight, 13, 'ceil(25 / 2)')
  t.equal(risk(analysis, 'PAUSABLE')?.weight, 8, 'ceil(15 / 2)')
})

t.test('program-derived holders: a known stake pool\'s withdraw authority, and an unnamed address off the curve', async t => {
  const [jitoWithdraw] = await getProgramDerivedAddress({
    programAddress: address('SPoo1Ku8WFXoNDMHPsrGSTSG1Y47rzgn41SLUNakuHy'),
    seeds: [getAddressEncoder().encode(address('Jito4APyf642JPZPx3hGc6WWJ8zPKtRbRs4P815Awbb')), getUtf8Encoder().encode('withdraw')]
  })
  const pool = await analyzer.analyze(await net.createMint({ decimals: 9, mintAuthority: jitoWithdraw, freezeAuthority: null }))
  t.match(mintPower(pool), { kind: 'program', account_owner: null, program_name: /^SPL stake-pool \(JitoSOL pool/, evidence: /^Off the ed25519 curve: a program-derived address of SPoo1Ku8/ })
  t.match(risk(pool, 'MINT_AUTHORITY_ACTIVE'), { weight: 6, message: /minting only against deposited SOL, so it weighs 6 instead of 30\.$/ })

  const [unnamed] = await getProgramDerivedAddress({ programAddress: MEMO_V3_PROGRAM, seeds: [getUtf8Encoder().encode('anything')] })
  const other = await analyzer.analyze(await net.createMint({ decimals: 9, mintAuthority: unnamed, freezeAuthority: null }))
  t.match(mintPower(other), { kind: 'program', account_owner: null, evidence: /only the program that derived the address can sign; no account there names which program/ })
  t.notOk('program_name' in mintPower(other)!)
  t.equal(risk(other, 'MINT_AUTHORITY_ACTIVE')?.weight, 15)
})

t.test('an executable program account holding a power weighs as one key', async t => {
  const analysis = await analyzer.analyze(await net.createMint({ decimals: 6, mintAuthority: null, freezeAuthority: MEMO_V3_PROGRAM }))
  const freeze = analysis.authorities.powers.find(power => power.power === 'freeze')
  t.match(freeze, { kind: 'executable', evidence: /^An executable program account/ })
  t.equal(risk(analysis, 'FREEZE_AUTHORITY_ACTIVE')?.weight, 25)
})

t.test('a Squads v4 multisig account: threshold and voting members from its bytes', async t => {
  // Encoded by the test from Squads v4's state/multisig.rs layout (Squads-Protocol/v4): no Squads program runs here.
  const members = wallets.slice(0, 3).map(wallet => wallet.address)
  const discriminator = createHash('sha256').update('account:Multisig').digest().subarray(0, 8)
  const data = concat([
    discriminator,
    getAddressEncoder().encode(wallets[4].address), // create_key
    new Uint8Array(32), // config_authority: none (autonomous)
    getU16Encoder().encode(2), // threshold
    getU32Encoder().encode(0), // time_lock
    getU64Encoder().encode(7n), getU64Encoder().encode(0n), // transaction_index, stale_transaction_index
    Uint8Array.from([0]), // rent_collector: None
    Uint8Array.from([255]), // bump
    getU32Encoder().encode(4),
    ...members.flatMap(member => [getAddressEncoder().encode(member), Uint8Array.from([7])]), // Initiate | Vote | Execute
    getAddressEncoder().encode(wallets[3].address), Uint8Array.from([1]), // Initiate only: not a voter
    Uint8Array.from([0]) // hook: None
  ])
  const squads = (await generateKeyPairSigner()).address
  net.setAccount(squads, { lamports: 10_000_000n, data, owner: SQUADS_V4_PROGRAM })
  const analysis = await analyzer.analyze(await net.createMint({ decimals: 6, mintAuthority: squads, freezeAuthority: null }))
  t.match(mintPower(analysis), { kind: 'squads_multisig', account_owner: SQUADS_V4_PROGRAM, program_name: 'Squads v4', threshold: 2, signers: members })
  t.match(risk(analysis, 'MINT_AUTHORITY_ACTIVE'), { weight: 15, message: /is a 2-of-3 Squads v4 multisig, so it weighs 15 instead of 30\.$/ })
})

t.test('when the holders cannot be read, each is unknown, weighs as one key, and the check says why', async t => {
  t.teardown(() => net.failMethod('getMultipleAccounts', null))
  const multisig = await createMultisig(2, wallets.slice(0, 2))
  const mint = await net.createMint({ decimals: 6, mintAuthority: multisig, freezeAuthority: null })
  net.failMethod('getMultipleAccounts', { httpStatus: 429, retryAfter: 5 })
  const analysis = await analyzer.analyze(mint)
  t.match(mintPower(analysis), { kind: 'unknown', account_owner: null, evidence: /could not be read: the RPC node rate-limited the request \(HTTP 429\)/ })
  t.match(risk(analysis, 'MINT_AUTHORITY_ACTIVE'), { weight: 30, message: /is of unknown kind/ })
  t.match(analysis.checks.find(entry => entry.check === 'authority_holders'), { status: 'unavailable', reason: /HTTP 429.*weighs as one key/ })
})

t.test('one getMultipleAccounts for every power, whatever their number', async t => {
  const holder = (await generateKeyPairSigner()).address
  const mint = await net.createMint({ decimals: 6, program: 'token-2022', freezeAuthority: holder, extensions: { transferFee: { basisPoints: 10, maximumFee: 1n }, permanentDelegate: holder, mintCloseAuthority: holder, pausable: holder } })
  net.resetStats()
  const analysis = await analyzer.analyze(mint)
  t.equal(net.stats().getMultipleAccounts, 1)
  t.same(analysis.authorities.powers.map(power => power.power).sort(),
    ['close', 'freeze', 'mint', 'pause', 'permanent_delegate', 'transfer_fee_config', 'transfer_fee_withdraw'])
  for (const code of ['MINT_AUTHORITY_ACTIVE', 'FREEZE_AUTHORITY_ACTIVE', 'PERMANENT_DELEGATE', 'TRANSFER_FEE_MUTABLE', 'MINT_CLOSE_AUTHORITY', 'PAUSABLE']) {
    t.match(risk(analysis, code)?.message, /is a wallet \(one private key\)\.$/, `${code} names its holder's kind`)
  }
})
