import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { UsageError } from '../../client/cli/exit-codes.js'
import { bridgeOptions, DEFAULT_LEDGER } from '../../client/mcp-bridge/options.js'
import { explorerLink, publicCluster, receiptLine, rpcServesPublicCluster } from '../../client/mcp-bridge/receipt.js'
import { startLocalnet } from '@token-merchant/localnet'
import { openSpendLedger } from '../../client/mcp-bridge/spend-ledger.js'
import { testFolder } from '../fixtures/test-folder.js'

t.test('options: flags over TOKEN_MERCHANT_MCP_* variables, checked', async t => {
  const env = { TOKEN_MERCHANT_MCP_MERCHANT: 'https://m.example', TOKEN_MERCHANT_MCP_KEYPAIR: '/k.json', TOKEN_MERCHANT_MCP_BUDGET: '500', TOKEN_MERCHANT_MCP_DRY_RUN: '1' }
  t.same(bridgeOptions({}, env), { merchant: 'https://m.example/', keypair: '/k.json', maxPrice: undefined, budget: 500n, ledger: DEFAULT_LEDGER, dryRun: true, rpc: undefined })
  t.match(bridgeOptions({ budget: '7', 'max-price': '3', ledger: '/l.json', rpc: 'http://127.0.0.1:8899' }, env), { budget: 7n, maxPrice: 3n, ledger: '/l.json', rpc: 'http://127.0.0.1:8899/' })
  t.throws(() => bridgeOptions({}, { TOKEN_MERCHANT_MCP_KEYPAIR: '/k.json' }), new UsageError('mcp needs --merchant (or TOKEN_MERCHANT_MCP_MERCHANT)'))
  t.throws(() => bridgeOptions({ merchant: 'https://m.example' }, {}), new UsageError('mcp needs --keypair (or TOKEN_MERCHANT_MCP_KEYPAIR)'), 'paying needs a wallet')
  t.match(bridgeOptions({ merchant: 'https://m.example', 'dry-run': 'true' }, {}), { keypair: undefined, dryRun: true }, 'a dry run does not')
  t.throws(() => bridgeOptions({ 'max-price': '0.05' }, env), /--max-price \(TOKEN_MERCHANT_MCP_MAX_PRICE\) must be a whole number of base units/)
  t.throws(() => bridgeOptions({ merchant: 'ftp://m.example' }, env), /--merchant .* must be an absolute http\(s\) URL/)
  t.throws(() => bridgeOptions({}, { ...env, TOKEN_MERCHANT_MCP_DRY_RUN: 'yes' }), /must be true or false/)
})

t.test('receipt: a local chain that advertises devnet\'s name is told apart by its genesis hash', async t => {
  const chain = await startLocalnet()
  t.teardown(() => chain.stop())
  t.equal(await rpcServesPublicCluster(chain.url, 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'), false)
  t.equal(await rpcServesPublicCluster('http://127.0.0.1:9', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'), false, 'an RPC that does not answer: no link')
  t.equal(await rpcServesPublicCluster('https://api.devnet.solana.com', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'), true, 'the cluster\'s public RPC, not asked')
  t.equal(await rpcServesPublicCluster(chain.url, 'solana:local'), false)
})

t.test('receipt: explorer links on public clusters only', async t => {
  t.equal(publicCluster('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1')?.name, 'devnet')
  t.equal(publicCluster('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d')?.rpcUrl, 'https://api.mainnet-beta.solana.com')
  t.equal(publicCluster('solana:LocalGenesisHashOfSomeChain'), undefined)
  t.equal(publicCluster('eip155:8453'), undefined)
  t.equal(explorerLink('sig', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d'), 'https://explorer.solana.com/tx/sig')
  t.equal(receiptLine({ amount: 50_000n, transaction: 'sig', network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', redelivered: false }, { symbol: 'USDC', decimals: 6 }),
    'Paid 0.05 USDC (50000 base units); transaction sig (https://explorer.solana.com/tx/sig?cluster=devnet)')
  t.equal(receiptLine({ amount: 50_000n, transaction: 'sig', network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', redelivered: false, onPublicCluster: false }, { symbol: 'USDC', decimals: 6 }),
    'Paid 0.05 USDC (50000 base units); transaction sig', 'devnet\'s name on another chain: no link')
  t.equal(receiptLine({ amount: 7n, transaction: 'sig', network: 'solana:local', redelivered: true }),
    'Re-delivered (paid earlier, nothing charged again): 7 base units; transaction sig')
})

t.test('ledger: holds within the budget per UTC day, gives refusals back, survives a reopen, refuses a foreign file', async t => {
  const path = join(testFolder(t), 'nested', 'ledger.json')
  let now = new Date('2026-01-01T23:59:00Z')
  const ledger = openSpendLedger(path, { budget: 100n, now: () => now })
  const day = ledger.hold(60n)
  t.throws(() => ledger.hold(50n), { name: 'BudgetExceeded', spentToday: 60n, budget: 100n })
  ledger.release(day, 60n)
  ledger.hold(60n)
  ledger.record({ at: now.toISOString(), tool: 't', amount: '60', transaction: 'sig', network: 'n' })
  t.equal(openSpendLedger(path, { budget: 100n, now: () => now }).spentToday(), 60n, 'read back from the file')
  now = new Date('2026-01-02T00:01:00Z')
  t.equal(ledger.spentToday(), 0n, 'a new UTC day')
  ledger.hold(100n)
  t.match(JSON.parse(readFileSync(path, 'utf8')), { spent: { '2026-01-01': '60', '2026-01-02': '100' }, payments: [{ transaction: 'sig' }] })

  const foreign = join(t.testdirName, 'foreign.json')
  writeFileSync(foreign, '{"spent": 5}')
  t.throws(() => openSpendLedger(foreign), /is not a token-merchant MCP ledger/)
})
