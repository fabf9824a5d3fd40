// Real mainnet launches: what the launch part's decoding makes of real getTransaction results (pump.fun
// creations with the creator's buy, a four-signer bundled buy, buys and sells). The bytes are not in
// the repository: MAINNET_FIXTURES names the folder holding mainnet-pools/transactions/ (run with
// `npm run test:mainnet -- <folder>`, or `MAINNET_FIXTURES=<folder> npx tap --disable-coverage test/mainnet/launch.mainnet.ts`).
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isOffCurveAddress, type Address } from '@solana/kit'
import { decodeLaunchTransaction, type RawTransaction } from '../../lib/token-analysis/launch/launch-transaction.js'
import { mainnetFixtures } from './fixtures-folder.js'

const transactions = mainnetFixtures('mainnet-pools', 'transactions')

/** A file's getTransaction result, unwrapped from the one-element array or the JSON-RPC envelope its repository kept. */
async function result (file: string): Promise<RawTransaction> {
  const parsed = JSON.parse(await readFile(join(transactions, file), 'utf8')) as unknown
  if (Array.isArray(parsed)) return parsed[0] as RawTransaction
  return (parsed as { result: RawTransaction }).result
}

const tokens = (amount: bigint) => Number(amount / 1_000_000n)

t.test('pump.fun creations: the inner InitializeMint2 found in both encodings, the fee payer as creator, its own buy received', async t => {
  const launches = [
    // json encoding (SOURCES.md: creator 6xo262Kb…, mint 5dNYcCZX…pump, 34.6M tokens bought)
    { file: 'jeffro_pumpfun_create_0.json', mint: '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump', creator: /^6xo262Kb/, bought: 34.6 },
    // jsonParsed (creator Fswrw3tg…, mint ER2N5eaD…)
    { file: 'chainstack_raw_create_tx_from_getTransaction.json', mint: 'ER2N5eaDoC68kNhj7LyaScimzq7deaqxiw88rewvxaKp', creator: /^Fswrw3tg/, bought: undefined }
  ]
  for (const { file, mint, creator, bought } of launches) {
    const raw = await result(file)
    const decoded = decodeLaunchTransaction(raw, mint as Address)
    t.match(decoded.feePayer, creator, `${file}: the fee payer is the creator`)
    t.equal(decoded.failed, false)
    t.equal(decoded.signature, raw.transaction.signatures[0])
    t.equal(decoded.slot, BigInt(raw.slot))
    t.ok(decoded.initialisedWith !== undefined, `${file}: the creation is found`)
    // pump.fun's mint authority is its own PDA, not the creator: initial_mint_authority is reported.
    t.ok(isOffCurveAddress(decoded.initialisedWith!.mintAuthority), `${file}: the initial mint authority is a program's address`)
    const own = decoded.receipts.filter(receipt => receipt.owner === decoded.feePayer)
    t.equal(own.length, 1, `${file}: the creator's buy is in the creation`)
    if (bought !== undefined) t.equal(Math.round(tokens(own[0].received) / 100_000) / 10, bought, `${file}: ${bought}M tokens bought`)
    const others = decoded.receipts.filter(receipt => receipt.owner !== decoded.feePayer)
    t.ok(others.every(receipt => isOffCurveAddress(receipt.owner)), `${file}: everything else went to program accounts (the bonding curve): nothing bundled`)
  }
})

t.test('a four-signer bundled buy: four wallets, each with its own account and about 12M tokens, no creation', async t => {
  const raw = await result('jeffro_pumpfun_buy_bundle.json')
  const decoded = decodeLaunchTransaction(raw, 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY' as Address)
  t.equal(decoded.initialisedWith, undefined)
  const buyers = decoded.receipts.filter(receipt => !isOffCurveAddress(receipt.owner))
  t.equal(new Set(buyers.map(receipt => receipt.owner)).size, 4)
  t.equal(new Set(buyers.map(receipt => receipt.tokenAccount)).size, 4)
  const signers = new Set(raw.transaction.message.accountKeys.slice(0, raw.transaction.signatures.length).map(key => typeof key === 'string' ? key : key.pubkey))
  t.ok(buyers.every(receipt => signers.has(receipt.owner)), 'each buyer signed the bundle')
  t.ok(buyers.every(receipt => tokens(receipt.received) >= 12_000_000 && tokens(receipt.received) <= 12_400_000), '12.0M to 12.4M each')
})

t.test('a buy receives, a sell does not: no creation in either', async t => {
  const buy = decodeLaunchTransaction(await result('jeffro_pumpfun_buy_0.json'), 'D66sbPtYqLnwPYcUqjDktrQtb52CnfF77C3sdpNpR8Si' as Address)
  t.equal(buy.initialisedWith, undefined)
  t.equal(buy.receipts.filter(receipt => receipt.owner === buy.feePayer).length, 1, 'the buyer received')
  const sell = decodeLaunchTransaction(await result('jeffro_pumpfun_sell_0.json'), 'CnNVDyM7GXBBcH8giuRYm17YCn6kpFTTbnd6Tx4hpump' as Address)
  t.equal(sell.initialisedWith, undefined)
  t.equal(sell.receipts.filter(receipt => receipt.owner === sell.feePayer).length, 0, 'the seller received nothing')
  t.ok(sell.receipts.every(receipt => isOffCurveAddress(receipt.owner)), 'only the curve received')
})
