import t from 'tap'
import { generateKeyPairSigner, type Address, type KeyPairSigner, type Signature } from '@solana/kit'
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system'
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS
} from '@solana-program/token'
import { startLocalnet } from '@token-merchant/localnet'
import { createTokenAnalyzer } from '../../../lib/token-analysis/analyze-token.js'
import { createLaunchParts } from '../../../lib/token-analysis/launch/launch-parts.js'
import { createSqliteStore } from '../../../db/sqlite/sqlite-store.js'

const DECIMALS = 6
const SUPPLY = 1_000_000_000n
const MINT_SIZE = 82n

const net = await startLocalnet()
t.teardown(() => net.stop())

const ata = async (mint: Address, owner: Address) => (await findAssociatedTokenPda({ mint, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]
const fund = (from: KeyPairSigner, to: Address, lamports: bigint) =>
  net.sendInstructions([getTransferSolInstruction({ source: from, destination: to, amount: lamports })], [from])

/**
 * A launch as the creator sends it: one transaction creates the mint (the creator pays and holds
 * the mint authority), mints the supply to the creator and, bundled in, `bundled` tokens to
 * another wallet. Returns the mint and the creation signature.
 */
async function launch (creator: KeyPairSigner, bundledTo: Address, bundled: bigint): Promise<{ mint: Address, signature: string }> {
  const mint = await generateKeyPairSigner()
  const rent = await net.rpc.getMinimumBalanceForRentExemption(MINT_SIZE).send()
  const creatorAccount = await ata(mint.address, creator.address)
  const bundledAccount = await ata(mint.address, bundledTo)
  const signature = await net.sendInstructions([
    getCreateAccountInstruction({ payer: creator, newAccount: mint, lamports: rent, space: MINT_SIZE, programAddress: TOKEN_PROGRAM_ADDRESS }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: DECIMALS, mintAuthority: creator.address }),
    getCreateAssociatedTokenIdempotentInstruction({ payer: creator, ata: creatorAccount, owner: creator.address, mint: mint.address }),
    getMintToInstruction({ mint: mint.address, token: creatorAccount, mintAuthority: creator, amount: SUPPLY - bundled }),
    getCreateAssociatedTokenIdempotentInstruction({ payer: creator, ata: bundledAccount, owner: bundledTo, mint: mint.address }),
    getMintToInstruction({ mint: mint.address, token: bundledAccount, mintAuthority: creator, amount: bundled })
  ], [creator, mint])
  return { mint: mint.address, signature }
}

/** A TransferChecked from `from`'s account to `to`'s (created in the same transaction); returns the signature. */
async function send (mint: Address, from: KeyPairSigner, to: Address, amount: bigint): Promise<string> {
  const destination = await ata(mint, to)
  return await net.sendInstructions([
    getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: destination, owner: to, mint }),
    getTransferCheckedInstruction({ source: await ata(mint, from.address), mint, destination, authority: from, amount, decimals: DECIMALS })
  ], [from])
}

// A creator funded by one wallet; four buyers funded by another.
const creatorFunder = await net.createWallet()
const buyersFunder = await net.createWallet()
const creator = await generateKeyPairSigner()
await fund(creatorFunder, creator.address, 1_000_000_000n)
const buyers = await Promise.all(Array.from({ length: 4 }, () => generateKeyPairSigner()))
const buyerFunding = new Map<Address, string>()
for (const buyer of buyers) buyerFunding.set(buyer.address, await fund(buyersFunder, buyer.address, 100_000_000n))
const bundledWallet = await generateKeyPairSigner()
const lateHolder = await generateKeyPairSigner()

// The creator launched three mints before this one.
const earlier: Array<{ mint: Address, signature: string }> = []
for (let index = 0; index < 3; index++) {
  const other = await generateKeyPairSigner()
  const rent = await net.rpc.getMinimumBalanceForRentExemption(MINT_SIZE).send()
  const signature = await net.sendInstructions([
    getCreateAccountInstruction({ payer: creator, newAccount: other, lamports: rent, space: MINT_SIZE, programAddress: TOKEN_PROGRAM_ADDRESS }),
    getInitializeMint2Instruction({ mint: other.address, decimals: DECIMALS, mintAuthority: creator.address })
  ], [creator, other])
  earlier.push({ mint: other.address, signature })
}

// The launch: 3% bundled in the creation, then 5% to each of the four buyers (20%) in the window.
const { mint, signature: creationSignature } = await launch(creator, bundledWallet.address, 30_000_000n)
const creationSlot = net.slot()
const buys: Array<{ signature: string, slot: number }> = []
for (const buyer of buyers) buys.push({ signature: await send(mint, creator, buyer.address, 50_000_000n), slot: net.slot() })
// Later holders, outside the window: the creator sells 1%, the first buyer passes on half of its tokens.
net.advanceSlots(25)
await send(mint, creator, lateHolder.address, 10_000_000n)
await send(mint, buyers[0], lateHolder.address, 25_000_000n)
// Two more, later, first funded by the creator itself: 6% each.
const creatorFunded = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()])
const creatorFunding = new Map<Address, string>()
for (const wallet of creatorFunded) {
  creatorFunding.set(wallet.address, await fund(creator, wallet.address, 10_000_000n))
  await send(mint, creator, wallet.address, 60_000_000n)
}

t.test('the launch as sent: creation, creator, early buyers with what they hold now, the bundle', async t => {
  const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts: createLaunchParts({ rpc: net.rpc, network: 'localnet' }) })
  const analysis = await analyzer.analyze(mint)
  const sent = await net.rpc.getTransaction(creationSignature as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send()
  const account = (owner: Address) => ata(mint, owner)
  t.same(analysis.launch, {
    available: true,
    creation_signature: creationSignature,
    slot: creationSlot,
    created_at: Number(sent?.blockTime),
    creator: creator.address,
    early_buyers: [
      { owner: bundledWallet.address, token_account: await account(bundledWallet.address), received: '30000000', slot: creationSlot, signature: creationSignature, holds_now: '30000000', share_now: 0.03 },
      ...await Promise.all(buyers.map(async (buyer, index) => ({
        owner: buyer.address,
        token_account: await account(buyer.address),
        received: '50000000',
        slot: buys[index].slot,
        signature: buys[index].signature,
        holds_now: index === 0 ? '25000000' : '50000000',
        share_now: index === 0 ? 0.025 : 0.05
      })))
    ],
    early_buyers_share_now: 0.205,
    bundled_in_creation: '30000000'
  })
  t.notOk(analysis.launch?.early_buyers?.some(buyer => buyer.owner === lateHolder.address), 'a holder from after the window is no early buyer')
  const risk = (code: string) => analysis.risks.find(found => found.code === code)
  t.match(risk('EARLY_BUYERS_HOLD'), { level: 'warning', weight: 15, message: `5 wallets that received the token within 20 slots of its creation (${creationSignature}) still hold 20.50% of the supply.` })
  t.match(risk('LAUNCH_BUNDLED'), { level: 'warning', weight: 10, message: `The creation transaction ${creationSignature} itself handed 3.00% of the supply to 1 wallets other than the creator.` })
  t.match(analysis.checks.find(entry => entry.check === 'launch'), { status: 'flagged', source: 'chain', slot: creationSlot, risks: ['EARLY_BUYERS_HOLD', 'LAUNCH_BUNDLED'] })
})

t.test('holder clusters: the largest holders grouped by who first funded them, the creator\'s marked', async t => {
  const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts: createLaunchParts({ rpc: net.rpc, network: 'localnet' }) })
  const analysis = await analyzer.analyze(mint)
  const pairs = (members: string[], evidence: string[]) => members.map((member, index) => `${member} ${evidence[index]}`).sort()
  const clusters = analysis.holders.clusters ?? []
  t.equal(clusters.length, 2, 'the bundled and the late wallet got no SOL: no funder, no cluster; singletons are not listed')
  t.match(clusters[0], { funder: buyersFunder.address, share: 0.175, funded_by_creator: false })
  t.same(pairs(clusters[0].members, clusters[0].evidence), [...buyerFunding].map(([wallet, signature]) => `${wallet} ${signature}`).sort())
  t.match(clusters[1], { funder: creator.address, share: 0.12, funded_by_creator: true })
  t.same(pairs(clusters[1].members, clusters[1].evidence), [...creatorFunding].map(([wallet, signature]) => `${wallet} ${signature}`).sort())
  const risk = (code: string) => analysis.risks.find(found => found.code === code)
  t.match(risk('HOLDER_CLUSTER'), { level: 'warning', weight: 15, message: new RegExp(`^4 of the largest holders, all first funded by ${buyersFunder.address} \\(first: \\w+\\), hold 17\\.50% of the supply\\.$`) })
  t.match(risk('HOLDER_CLUSTER_CREATOR'), { level: 'danger', weight: 25, message: new RegExp(`^2 of the largest holders, all first funded by the creator ${creator.address} \\(first: \\w+\\), hold 12\\.00% of the supply`) })
  t.match(analysis.checks.find(entry => entry.check === 'holder_clusters'), { status: 'flagged', risks: ['HOLDER_CLUSTER_CREATOR', 'HOLDER_CLUSTER'] })
})

t.test('the creator: its earlier mints with their creation signatures, from its own history', async t => {
  const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts: createLaunchParts({ rpc: net.rpc, network: 'localnet' }) })
  const analysis = await analyzer.analyze(mint)
  // What the creator signed: its funding, 3 earlier mints, the launch, 4 buys, 1 late sale, 2 fundings and 2 sends.
  t.same(analysis.creator, { available: true, address: creator.address, mints_created: 3, scanned_signatures: 14, complete: true, others: [...earlier].reverse() })
  t.match(analysis.risks.find(risk => risk.code === 'SERIAL_CREATOR'), { level: 'warning', weight: 10, message: `The creator ${creator.address} paid for the creation of 3 other mints in its 14 newest transactions (the newest: ${earlier[2].signature}).` })
  t.match(analysis.checks.find(entry => entry.check === 'creator'), { status: 'flagged', risks: ['SERIAL_CREATOR'] })
})

t.test('a history longer than the pages read: the launch is unavailable and says which bound', async t => {
  const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts: createLaunchParts({ rpc: net.rpc, network: 'localnet', maxPages: 0 }) })
  const analysis = await analyzer.analyze(mint)
  t.same(analysis.launch, { available: false, reason: 'The launch is unavailable: the mint has more than 0 signatures, older than the history the analysis reads.' })
  t.match(analysis.checks.find(entry => entry.check === 'launch'), { status: 'unavailable' })
  t.same(analysis.creator, { available: false, reason: `The creator is unknown: ${analysis.launch?.reason}` })
})

t.test('out of time: the launch is unavailable with its reason and the analysis still answers', async t => {
  const analyzer = createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts: createLaunchParts({ rpc: net.rpc, network: 'localnet' }), partsBudgetMs: 50 })
  net.setLatency(200)
  t.teardown(() => net.setLatency(0))
  const analysis = await analyzer.analyze(mint)
  t.equal(analysis.launch?.available, false)
  t.match(analysis.launch?.reason, /ran out of time/)
  t.equal(analysis.mint, mint)
  t.notOk(analysis.risks.some(risk => risk.code === 'EARLY_BUYERS_HOLD'))
})

t.test('kept in the store: a repeated analysis reads no launch history, only the balances now', async t => {
  const store = createSqliteStore(':memory:')
  t.teardown(() => store.close())
  // The launch part alone: the clusters part reads the holders' own histories on every analysis.
  const parts = createLaunchParts({ rpc: net.rpc, network: 'localnet', store: store.launchFacts }).filter(part => part.name === 'launch')
  const analyzer = () => createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts })
  net.resetStats()
  const first = await analyzer().analyze(mint)
  const firstStats = net.stats()
  t.equal(firstStats.getSignaturesForAddress, 1, 'one page of signatures')
  t.equal(firstStats.getTransaction, 5, 'the creation and the four buys of the window')
  // A buyer sells after the first analysis: the kept launch is the same, its holdings are now.
  await send(mint, buyers[1], lateHolder.address, 50_000_000n)
  net.resetStats()
  const second = await analyzer().analyze(mint)
  const secondStats = net.stats()
  t.equal(secondStats.getSignaturesForAddress ?? 0, 0, 'no history read again')
  t.equal(secondStats.getTransaction ?? 0, 0, 'no transaction read again')
  const { early_buyers: before, ...launchBefore } = first.launch!
  const { early_buyers: after, ...launchAfter } = second.launch!
  t.same({ ...launchAfter, early_buyers_share_now: launchBefore.early_buyers_share_now }, launchBefore, 'the same creation and creator')
  t.equal(launchAfter.early_buyers_share_now, 0.155)
  t.same(after?.map(buyer => buyer.holds_now), before?.map((buyer, index) => index === 2 ? '0' : buyer.holds_now))
})

t.test('kept in the store, all parts: a repeated analysis reads neither the launch nor the funders found before', async t => {
  const store = createSqliteStore(':memory:')
  t.teardown(() => store.close())
  const analyzer = () => createTokenAnalyzer({ rpc: net.rpc, network: 'localnet', cacheTtlMs: 0, parts: createLaunchParts({ rpc: net.rpc, network: 'localnet', store: store.launchFacts }) })
  const first = await analyzer().analyze(mint)
  net.resetStats()
  const second = await analyzer().analyze(mint)
  const stats = net.stats()
  t.same(second.holders.clusters, first.holders.clusters, 'the same clusters from the kept funders')
  t.same(second.creator, first.creator)
  // Read again: the creator's page of signatures, and the two holders that never received SOL (bundled, late): no funder to keep.
  t.equal(stats.getSignaturesForAddress, 3)
  // Those two holders' first transactions are the creator's own (it sent them their tokens): read once for both parts.
  t.equal(stats.getTransaction, 14, 'the creator\'s 14 transactions, those two holders\' first among them')
  // The same service analysing the token again has kept those transactions too.
  const service = analyzer()
  await service.analyze(mint)
  net.resetStats()
  t.same((await service.analyze(mint)).creator, first.creator)
  t.equal(net.stats().getTransaction ?? 0, 0, 'no transaction read twice by one service')
})
