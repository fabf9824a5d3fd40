import t from 'tap'
import { startLocalnet } from '@token-merchant/localnet'
import { build } from '../helper.js'

const net = await startLocalnet()
t.teardown(() => net.stop())
const mint = await net.createMint({ decimals: 6, freezeAuthority: null })

t.test('a malformed address is 400 VALIDATION_ERROR before any payment is asked', async t => {
  const app = await build(t, { SOLANA_RPC_URL: net.url })
  // 33 and 34 bytes of base58 that the schema pattern alone would let through, then plain garbage.
  for (const bad of ['1'.repeat(33), 'z'.repeat(44), 'not-a-mint', '0'.repeat(40)]) {
    const res = await app.inject(`/api/analyze-token/${bad}`)
    t.equal(res.statusCode, 400, bad)
    t.match(res.json(), { code: 'VALIDATION_ERROR', validation: [{ in: 'params', path: 'address' }] }, bad)
    t.notOk('accepts' in res.json(), 'no payment requirements')
  }
  net.resetStats()
  const unpaid = await app.inject(`/api/analyze-token/${mint}`)
  t.equal(unpaid.statusCode, 402, 'a well-formed address is asked to pay')
  t.match(unpaid.json(), { code: 'PAYMENT_REQUIRED', accepts: [{ maxAmountRequired: '100000' }] })
  t.notOk('getAccountInfo' in net.stats(), 'nothing is read before payment')
})

t.test('the plugin gives the app an analyzer over its Solana RPC client', async t => {
  const app = await build(t, { SOLANA_RPC_URL: net.url, ANALYSIS_CACHE_TTL_MS: '60000' })
  const analysis = await app.tokenAnalysis.analyze(mint)
  t.match(analysis, { mint, decimals: 6, supply: '0', authorities: { mint_authority_disabled: false } })
  t.equal(await app.tokenAnalysis.analyze(mint), analysis, 'reused within ANALYSIS_CACHE_TTL_MS')
})
