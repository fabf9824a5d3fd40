import { join } from 'node:path'
import { createKeyPairSignerFromBytes } from '@solana/kit'
import t from 'tap'
import { run } from '../../client/cli/run.js'
import { buyViaMcp, connectMerchantMcp, getManifest, isBuyerError, toolCallFor, type McpBuyStep } from '../../client/index.js'
import { generateKeypairBytes, writeKeypairFile } from '../../lib/solana/keypair-file.js'
import { startX402Merchant } from '../fixtures/x402-merchant.js'
import { testFolder } from '../fixtures/test-folder.js'

const m = await startX402Merchant(t)
const manifest = await getManifest(m.url)
const client = await connectMerchantMcp(manifest.mcp_url ?? '')
t.teardown(() => client.close())

t.test('a paid URL maps to its tool and arguments through the manifest', async t => {
  t.match(toolCallFor(`${m.url}/api/fetch-price/SOL?vs=JUP`, manifest), { tool: 'fetch_price', arguments: { token: 'SOL', vs: 'JUP' }, service: { name: 'fetch-price' } })
  t.match(toolCallFor(`${m.url}/api/analyze-token/${m.paid.mint}`, manifest), { tool: 'analyze_token', arguments: { address: m.paid.mint } })
  t.throws(() => toolCallFor(`${m.url}/api/nothing/here`, manifest), { code: 'INVALID_INPUT' })
})

t.test('buyViaMcp: requirements checked, the official client pays, the document and the settlement come back', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const steps: McpBuyStep[] = []
  const before = { merchant: await m.merchantBalance(), sol: await m.solBalance(buyer.address) }
  const bought = await buyViaMcp(client, `${m.url}/api/fetch-price/SOL`, { signer: buyer, rpcUrl: m.paid.chain.url, manifest, maxPrice: 50_000n, onStep: step => steps.push(step) })
  t.match(bought, { tool: 'fetch_price', data: { data: { mintSymbol: 'SOL' } }, amountPaid: 50_000n, receipt: { success: true, payer: buyer.address } })
  t.equal(bought.signature, bought.receipt?.transaction)
  t.same(steps.map(step => step.type), ['mcp-call', 'payment-required', 'requirements-accepted', 'payment-signed', 'mcp-call', 'delivered'])
  t.equal(await m.merchantBalance() - before.merchant, 50_000n)
  t.equal(await m.solBalance(buyer.address), before.sol, 'no SOL spent by the buyer')
})

t.test('the spending limit refuses before anything is signed', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const steps: McpBuyStep[] = []
  const before = await m.tokenBalance(buyer.address)
  const error = await buyViaMcp(client, `${m.url}/api/analyze-token/${m.paid.mint}`, { signer: buyer, rpcUrl: m.paid.chain.url, manifest, maxPrice: 99_999n, onStep: step => steps.push(step) })
    .catch((e: unknown) => e)
  t.ok(isBuyerError(error, 'SPENDING_LIMIT'), String(error))
  t.notOk(steps.some(step => step.type === 'payment-signed'), 'no payment was built')
  t.equal(await m.tokenBalance(buyer.address), before)
})

t.test('terms that differ from the manifest are refused before paying', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const forged = { ...manifest, payment_address: buyer.address }
  const error = await buyViaMcp(client, `${m.url}/api/fetch-price/SOL`, { signer: buyer, rpcUrl: m.paid.chain.url, manifest: forged }).catch((e: unknown) => e)
  t.ok(isBuyerError(error, 'REQUIREMENTS_MISMATCH'), String(error))
})

t.test('a tool that fails after the payment was verified: REQUEST_FAILED with its code, nothing charged', async t => {
  const buyer = await m.paid.newBuyer(1_000_000n)
  const before = await m.tokenBalance(buyer.address)
  const error = await buyViaMcp(client, `${m.url}/api/analyze-token/${(await createKeyPairSignerFromBytes(generateKeypairBytes())).address}`,
    { signer: buyer, rpcUrl: m.paid.chain.url, manifest }).catch((e: unknown) => e)
  t.ok(isBuyerError(error, 'REQUEST_FAILED'), String(error))
  t.match(error, { details: { serverCode: 'MINT_NOT_FOUND', status: 404 }, message: /nothing was charged/ })
  t.equal(await m.tokenBalance(buyer.address), before)
})

t.test('token-merchant buy --via mcp: the same command, through the MCP tool', async t => {
  const keypair = join(testFolder(t), 'buyer.json')
  // The buyer's key as a keypair file, funded with SOL and tokens.
  const bytes = generateKeypairBytes()
  writeKeypairFile(keypair, bytes)
  const fileBuyer = await createKeyPairSignerFromBytes(bytes)
  await m.paid.chain.airdrop(fileBuyer.address, 1_000_000_000n)
  await m.paid.chain.mintTo(m.paid.mint, fileBuyer.address, 1_000_000n)

  let stdout = ''
  let stderr = ''
  const streams = { stdout: (text: string) => { stdout += text }, stderr: (text: string) => { stderr += text } }
  const code = await run(['buy', `${m.url}/api/fetch-price/SOL`, '--keypair', keypair, '--rpc', m.paid.chain.url, '--via', 'mcp', '--max-price', '50000', '--json'], streams)
  t.equal(code, 0, stdout + stderr)
  const out = JSON.parse(stdout)
  t.match(out, { ok: true, command: 'buy', result: { via: 'mcp', tool: 'fetch_price', amountPaid: '50000', data: { data: { mintSymbol: 'SOL' } }, receipt: { payer: fileBuyer.address } } })

  stdout = ''
  const limited = await run(['buy', `${m.url}/api/fetch-price/SOL`, '--keypair', keypair, '--rpc', m.paid.chain.url, '--via', 'mcp', '--max-price', '1', '--json'], streams)
  t.equal(limited, 3, 'refused by --max-price: exit 3')
  t.match(JSON.parse(stdout), { ok: false, error: { code: 'SPENDING_LIMIT' } })

  stdout = ''
  t.equal(await run(['buy', `${m.url}/api/fetch-price/SOL`, '--keypair', keypair, '--via', 'carrier-pigeon', '--json'], streams), 1, 'usage')
  stdout = ''
  stderr = ''
  t.equal(await run(['buy', `${m.url}/api/fetch-price/SOL`, '--keypair', keypair, '--rpc', m.paid.chain.url, '--via', 'mcp'], streams), 0)
  t.match(stderr, /→ tools\/call fetch_price \{"token":"SOL"\} \(no payment\)/)
  t.match(stderr, /✓ delivered; settled: transaction/)
  t.match(JSON.parse(stdout), { data: { mintSymbol: 'SOL' } })
})
