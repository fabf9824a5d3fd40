import t from 'tap'
import { address, type Address } from '@solana/kit'
import { getPauseInstruction, getThawAccountInstruction } from '@solana-program/token-2022'
import { startLocalnet } from '@token-merchant/localnet'
import { createTokenAnalyzer } from '../../../lib/token-analysis/analyze-token.js'
import type { TokenAnalysisBody } from '../../../schemas/token-analysis.js'

const TOKEN_2022 = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb')
const net = await startLocalnet()
t.teardown(() => net.stop())
const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, transferSimulation: { budgetMs: 5000 } })
const check = (analysis: TokenAnalysisBody) => analysis.checks.find(entry => entry.check === 'transfer_simulation')
const has = (analysis: TokenAnalysisBody, code: string) => analysis.risks.some(risk => risk.code === code)

/** A holder wallet with SOL (it pays the simulated fee and rent), holding `amount` of the mint. */
async function fundedHolder (mint: Address, amount: bigint): Promise<Address> {
  const wallet = await net.createWallet()
  return await net.mintTo(mint, wallet.address, amount)
}

t.test('a plain SPL Token mint: the transfer goes through, nothing is charged', async t => {
  const mint = await net.createMint({ decimals: 6, freezeAuthority: null })
  const account = await fundedHolder(mint, 5_000_000n)
  net.resetStats()
  const analysis = await analyzer.analyze(mint)
  t.match(analysis.transfer_simulation, { available: true, succeeded: true, from_account: account, amount: '1000000', received: '1000000', fee_charged: '0', slot: Number })
  t.match(check(analysis), { status: 'passed', source: 'chain', risks: [] })
  t.notOk(has(analysis, 'TRANSFER_SIMULATION_FAILED'))
  t.equal(net.stats().simulateTransaction, 1)
  t.equal(net.stats().sendTransaction, undefined, 'nothing is sent')
})

t.test('the largest account\'s owner has no SOL: another large holder\'s owner pays, the transfer is still from the largest', async t => {
  const mint = await net.createMint({ decimals: 6, freezeAuthority: null })
  const largest = await net.mintTo(mint, (await net.createWallet(0n)).address, 9_000_000n)
  await fundedHolder(mint, 1_000_000n)
  const analysis = await analyzer.analyze(mint)
  t.match(analysis.transfer_simulation, { available: true, succeeded: true, from_account: largest, amount: '1000000', received: '1000000' })

  // Two unfunded owners first: the other three owners are tried in a second round.
  const deeper = await net.createMint({ decimals: 6, freezeAuthority: null })
  const top = await net.mintTo(deeper, (await net.createWallet(0n)).address, 9_000_000n)
  await net.mintTo(deeper, (await net.createWallet(0n)).address, 8_000_000n)
  await fundedHolder(deeper, 1_000_000n)
  net.resetStats()
  t.match((await analyzer.analyze(deeper)).transfer_simulation, { available: true, succeeded: true, from_account: top })
  t.equal(net.stats().simulateTransaction, 3, 'two side by side, then the third owner')
})

t.test('Token-2022 with a 3% transfer fee: goes through, and the fee is seen charged', async t => {
  const mint = await net.createMint({ decimals: 6, program: 'token-2022', freezeAuthority: null, extensions: { transferFee: { basisPoints: 300, maximumFee: 1_000_000n } } })
  await fundedHolder(mint, 10_000_000n)
  const analysis = await analyzer.analyze(mint)
  t.match(analysis.transfer_simulation, { available: true, succeeded: true, amount: '1000000', received: '970000', fee_charged: '30000' })
  t.notOk(has(analysis, 'TRANSFER_SIMULATION_FAILED'))
  t.ok(has(analysis, 'TRANSFER_FEE'), 'the fee itself is weighed by its own finding')
})

t.test('Token-2022 non-transferable: the transfer fails, with the program\'s error', async t => {
  const mint = await net.createMint({ decimals: 6, program: 'token-2022', freezeAuthority: null, extensions: { nonTransferable: true } })
  await fundedHolder(mint, 2_000_000n)
  const analysis = await analyzer.analyze(mint)
  t.match(analysis.transfer_simulation, { available: true, succeeded: false, error: /^Transfer is disabled for this mint \(\{"InstructionError":\[1,/ })
  t.ok(has(analysis, 'TRANSFER_SIMULATION_FAILED'))
  t.match(analysis.risks.find(risk => risk.code === 'TRANSFER_SIMULATION_FAILED'), { level: 'danger', weight: 40, message: /fails in simulation: .*InstructionError/ })
  t.match(check(analysis), { status: 'flagged', risks: ['TRANSFER_SIMULATION_FAILED'] })
})

t.test('Token-2022 default-frozen: the new account starts frozen, so the transfer fails', async t => {
  const mint = await net.createMint({ decimals: 6, program: 'token-2022', freezeAuthority: net.authority.address, extensions: { defaultAccountState: 'frozen' } })
  const wallet = await net.createWallet()
  const account = await net.createAta(mint, wallet.address)
  await net.sendInstructions([getThawAccountInstruction({ account, mint, owner: net.authority }, { programAddress: TOKEN_2022 })], [net.authority])
  await net.mintTo(mint, wallet.address, 3_000_000n)
  const analysis = await analyzer.analyze(mint)
  t.match(analysis.transfer_simulation, { available: true, succeeded: false, from_account: account, error: /frozen/i })
  t.ok(has(analysis, 'TRANSFER_SIMULATION_FAILED') && has(analysis, 'DEFAULT_ACCOUNT_STATE_FROZEN'))
})

t.test('Token-2022 paused: the transfer fails while paused', async t => {
  const mint = await net.createMint({ decimals: 6, program: 'token-2022', freezeAuthority: null, extensions: { pausable: net.authority.address } })
  await fundedHolder(mint, 2_000_000n)
  t.match((await analyzer.analyze(mint)).transfer_simulation, { succeeded: true }, 'not paused yet: it goes through')
  await net.sendInstructions([getPauseInstruction({ mint, authority: net.authority })], [net.authority])
  const analysis = await analyzer.analyze(mint)
  t.match(analysis.transfer_simulation, { available: true, succeeded: false, error: /^Transferring, minting, and burning is paused on this mint/ })
  t.ok(has(analysis, 'TRANSFER_SIMULATION_FAILED') && has(analysis, 'PAUSED'))
})

t.test('no verdict without a holder able to pay, without holders, or past the time budget: unavailable, weighing nothing', async t => {
  const mint = await net.createMint({ decimals: 6, freezeAuthority: null })
  await net.mintTo(mint, (await net.createWallet(0n)).address, 1_000_000n)
  const broke = await analyzer.analyze(mint)
  t.match(broke.transfer_simulation, { available: false, reason: /none of the largest accounts' owners could pay/ })
  t.match(check(broke), { status: 'unavailable', risks: [] })
  const without = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0 })
  t.equal(broke.risk_score, (await without.analyze(mint)).risk_score, 'an unavailable simulation adds no weight')

  const empty = await analyzer.analyze(await net.createMint({ decimals: 6, freezeAuthority: null }))
  t.match(check(empty), { status: 'not_applicable', reason: /No account holds the token/ })

  t.teardown(() => net.failMethod('getTokenLargestAccounts', null))
  net.failMethod('getTokenLargestAccounts', { httpStatus: 429 })
  t.match(check(await analyzer.analyze(mint)), { status: 'unavailable', reason: /without holder data/ })
  net.failMethod('getTokenLargestAccounts', null)

  const funded = await net.createMint({ decimals: 6, freezeAuthority: null })
  await fundedHolder(funded, 1_000_000n)
  t.teardown(() => net.setLatency(0))
  net.setLatency(150)
  const hurried = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, transferSimulation: { budgetMs: 400 } })
  const late = await hurried.analyze(funded)
  t.match(late.transfer_simulation, { available: false, reason: /time budget/ })
  t.notOk(has(late, 'TRANSFER_SIMULATION_FAILED'))
})

t.test('a transfer hook is not resolved: unavailable rather than a false failure', async t => {
  const mint = await net.createMint({ decimals: 6, program: 'token-2022', freezeAuthority: null, extensions: { transferHook: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr') } })
  await fundedHolder(mint, 1_000_000n)
  t.match((await analyzer.analyze(mint)).transfer_simulation, { available: false, reason: /transfer hook/ })
})
