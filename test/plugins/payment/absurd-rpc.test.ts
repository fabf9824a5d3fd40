import t from 'tap'
import { startMisbehavingRpc, type Misbehaviour } from '../../fixtures/misbehaving-rpc.js'
import { proofHeaders, startPaidChain } from '../../fixtures/paid-chain.js'
import { build } from '../../helper.js'

const withBalance = (key: 'preTokenBalances' | 'postTokenBalances', amount: string) => (result: Record<string, any>) =>
  ({ ...result, meta: { ...result.meta, [key]: result.meta[key].map((balance: Record<string, any>) => ({ ...balance, uiTokenAmount: { ...balance.uiTokenAmount, amount } })) } })

const CASES: Array<[string, Misbehaviour]> = [
  ['a negative pre-balance', { method: 'getTransaction', mode: 'rewrite', result: withBalance('preTokenBalances', '-5') }],
  ['an amount above u64', { method: 'getTransaction', mode: 'rewrite', result: withBalance('postTokenBalances', '99999999999999999999') }],
  ['no meta.err key', { method: 'getTransaction', mode: 'rewrite', result: (result) => ({ ...result, meta: { ...result.meta, err: undefined } }) }],
  ['a block time in the future', { method: 'getTransaction', mode: 'rewrite', result: (result) => ({ ...result, blockTime: Math.floor(Date.now() / 1000) + 86_400 }) }],
  ['a non-integer block time', { method: 'getTransaction', mode: 'rewrite', result: (result) => ({ ...result, blockTime: 1.5 }) }],
  ['an HTML page', { method: 'getTransaction', mode: 'html' }],
  ['truncated JSON', { method: 'getTransaction', mode: 'not-json' }],
  ['a JSON-RPC envelope without result or error', { method: 'getTransaction', mode: 'wrong-envelope' }]
]

t.test('absurd or garbled RPC answers are the RPC\'s fault: 503 with Retry-After, the proof kept', async t => {
  const paid = await startPaidChain(t)
  const proxy = await startMisbehavingRpc(t, paid.chain.url)
  const app = await build(t, { ...paid.env, SOLANA_RPC_URL: proxy.url }, (app) => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => ({ delivered: true }))
  })
  const buyer = await paid.newBuyer()
  for (const [name, misbehaviour] of CASES) {
    const headers = proofHeaders(await paid.pay(buyer, 50_000n), buyer.address)
    proxy.misbehave(misbehaviour)
    const refused = await app.inject({ url: '/test/paid', headers })
    t.equal(refused.statusCode, 503, `${name}: 503`)
    t.equal(refused.json().code, 'RPC_UNAVAILABLE', `${name}: RPC_UNAVAILABLE`)
    t.ok(Number(refused.headers['retry-after']) > 0, `${name}: Retry-After`)
    proxy.misbehave(null)
    const served = await app.inject({ url: '/test/paid', headers })
    t.equal(served.statusCode, 200, `${name}: the same proof buys the delivery once the RPC is sane`)
  }
})
