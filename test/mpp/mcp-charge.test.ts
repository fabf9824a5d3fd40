import t, { type Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Challenge, Credential } from 'mppx'
import { McpClient } from 'mppx/mcp/client'
import { solana } from '@solana/mpp/client'
import type { KeyPairSigner } from '@solana/kit'
import { proofHeaders } from '../fixtures/paid-chain.js'
import { buildExactPayment } from '../fixtures/x402-payment.js'
import { startX402Merchant, type X402Merchant } from '../fixtures/x402-merchant.js'

// MPP's Solana charge over POST /mcp (issue #53 item 3): mppx's McpClient.wrap around the MCP
// SDK's client, with @solana/mpp's charge method, in pull and push mode on both products, on the
// local chain with balances read on chain; replays and reuse across doors and protocols move nothing.

const CREDENTIAL = 'org.paymentauth/credential'
const PAYMENT_REQUIRED = 'org.paymentauth/payment-required'
const RECEIPT = 'org.paymentauth/receipt'

type Mode = 'pull' | 'push'
type Candidate = { challenge: { request: { methodDetails?: { feePayer?: boolean } } } }
type Structured = Record<string, any>

/** The SDK's client over streamable HTTP; every tools/call's `_meta` as it went out is kept. */
async function connect (t: Test, m: X402Merchant) {
  const sent: Array<Record<string, unknown>> = []
  const client = new Client({ name: 'mpp-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', m.url), {
    fetch: async (input, init) => {
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined
      if (body?.method === 'tools/call') sent.push(body.params._meta ?? {})
      return await fetch(input, init)
    }
  }))
  t.teardown(() => client.close())
  return { client, sent }
}

/** The unmodified McpClient around `client`; in push mode the challenge without a fee payer is ordered first. */
function wrapped (client: Client, m: X402Merchant, buyer: KeyPairSigner, mode: Mode) {
  return McpClient.wrap(client, {
    methods: [solana.charge({ signer: buyer, rpcUrl: m.paid.chain.url, broadcast: mode === 'push' })],
    ...(mode === 'push'
      ? { orderChallenges: (candidates: readonly Candidate[]) => [...candidates].sort((a, b) => Number(a.challenge.request.methodDetails?.feePayer === true) - Number(b.challenge.request.methodDetails?.feePayer === true)) }
      : {})
  } as Parameters<typeof McpClient.wrap>[1])
}

t.test('MPP over MCP on the local chain', async t => {
  const m = await startX402Merchant(t)
  const tools = [
    { name: 'fetch_price', arguments: { token: 'SOL' }, price: 50_000n, check: (doc: Structured) => doc.data?.mintSymbol === 'SOL' },
    { name: 'analyze_token', arguments: { address: m.paid.mint }, price: 100_000n, check: (doc: Structured) => doc.mint === m.paid.mint }
  ]

  t.test('an unpaid call answers x402\'s PaymentRequired and, in _meta, a pull and a push charge for the tool', async t => {
    const { client } = await connect(t, m)
    const result = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
    t.equal(result.isError, true)
    t.match(result.structuredContent, { x402Version: 2, accepts: Array, code: 'PAYMENT_REQUIRED' }, 'the x402 binding unchanged')
    const required = result._meta?.[PAYMENT_REQUIRED] as { httpStatus: number, challenges: unknown[] }
    t.equal(required.httpStatus, 402)
    const challenges = required.challenges.map(c => Challenge.Schema.parse(c))
    t.same(challenges.map(c => (c.request.methodDetails as { feePayer?: boolean }).feePayer === true), [true, false], 'pull, then push')
    for (const challenge of challenges) {
      t.match(challenge, { method: 'solana', intent: 'charge', expires: String })
      t.match(challenge.request, { amount: '50000', currency: m.paid.mint, recipient: m.paid.merchant.address })
    }
  })

  for (const mode of ['pull', 'push'] as const) {
    t.test(`McpClient.wrap with @solana/mpp's charge pays both tools in ${mode} mode`, async t => {
      const buyer = await m.paid.newBuyer(10_000_000n)
      const { client } = await connect(t, m)
      const mcp = wrapped(client, m, buyer, mode)
      for (const tool of tools) {
        const before = await m.merchantBalance()
        const tokens = await m.tokenBalance(buyer.address)
        const sol = await m.solBalance(buyer.address)
        const result = await mcp.callTool({ name: tool.name, arguments: tool.arguments })
        t.notOk(result.isError, `${tool.name}: ${JSON.stringify(result.structuredContent).slice(0, 300)}`)
        t.ok(tool.check(result.structuredContent as Structured), 'the document')
        t.match(result.receipt, { method: 'solana', status: 'success', reference: String, challengeId: String }, 'the receipt where mppx reads it')
        t.notOk(result._meta?.['x402/payment-response'], 'no x402 receipt for an MPP payment')
        t.equal(await m.merchantBalance() - before, tool.price, 'the merchant got exactly the price')
        t.equal(tokens - await m.tokenBalance(buyer.address), tool.price, 'the buyer paid exactly the price')
        if (mode === 'pull') t.equal(await m.solBalance(buyer.address), sol, 'pull: the merchant paid the fee')
        else t.ok(await m.solBalance(buyer.address) < sol, 'push: the buyer paid its own fee')
      }
    })
  }

  t.test('a replayed credential, or one issued for another door, moves nothing and buys nothing', async t => {
    for (const mode of ['pull', 'push'] as const) {
      const buyer = await m.paid.newBuyer(10_000_000n)
      const { client, sent } = await connect(t, m)
      const raw = { callTool: client.callTool.bind(client) }
      await wrapped(client, m, buyer, mode).callTool({ name: 'fetch_price', arguments: { token: 'SOL' } })
      const credential = sent.find(meta => meta[CREDENTIAL] !== undefined)?.[CREDENTIAL]
      t.ok(credential, `${mode}: the credential the client sent`)
      const before = await m.merchantBalance()
      const again = await raw.callTool({ name: 'fetch_price', arguments: { token: 'SOL' }, _meta: { [CREDENTIAL]: credential } }) as CallToolResult
      t.equal((again.structuredContent as Structured).code, 'PAYMENT_ALREADY_USED', `${mode}: the same credential again`)
      t.notOk(again._meta?.[PAYMENT_REQUIRED], 'a refusal offers no challenge an MPP client would pay again')
      const otherTool = await raw.callTool({ name: 'fetch_price', arguments: { token: 'BONK' }, _meta: { [CREDENTIAL]: credential } }) as CallToolResult
      t.equal((otherTool.structuredContent as Structured).code, 'PAYMENT_ALREADY_USED', `${mode}: the same payment for other arguments`)
      const overHttp = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: { authorization: Credential.serialize(credential as Credential.Credential) } })
      t.equal((await overHttp.json() as Structured).code, 'MPP_CHALLENGE_MISMATCH', `${mode}: the tool's credential over HTTP`)
      t.equal(await m.merchantBalance(), before, 'nothing moved')
    }
  })

  t.test('an HTTP challenge is no tool challenge; a pushed signature is one payment across doors', async t => {
    const buyer = await m.paid.newBuyer(10_000_000n)
    const { client } = await connect(t, m)
    const http = Challenge.deserializeList((await fetch(`${m.url}/api/fetch-price/SOL`)).headers.get('www-authenticate') ?? '')
    const httpPush = http.find(c => (c.request.methodDetails as { feePayer?: boolean }).feePayer !== true) as Challenge.Challenge
    const pushed = await m.paid.pay(buyer, 50_000n)
    const before = await m.merchantBalance()
    const call = async (credential: unknown) => await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' }, _meta: { [CREDENTIAL]: credential } }) as CallToolResult
    t.equal(((await call({ challenge: httpPush, payload: { type: 'signature', signature: pushed } })).structuredContent as Structured).code, 'MPP_CHALLENGE_MISMATCH', 'an HTTP resource\'s challenge')

    const unpaid = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
    const toolPush = (unpaid._meta?.[PAYMENT_REQUIRED] as { challenges: Challenge.Challenge[] }).challenges[1]
    const bought = await call({ challenge: toolPush, payload: { type: 'signature', signature: pushed } })
    t.notOk(bought.isError, 'bought over MCP with the push signature')
    t.match(bought._meta?.[RECEIPT], { reference: pushed, challengeId: toolPush.id })
    const asProof = await fetch(`${m.url}/api/fetch-price/SOL`, { headers: proofHeaders(pushed, buyer.address) })
    t.equal((await asProof.json() as Structured).code, 'PAYMENT_ALREADY_USED', 'the same signature as a proof over HTTP')
    t.equal(await m.merchantBalance(), before, 'nothing more moved than the one transfer')
  })

  t.test('a malformed credential, or two payments in one call, is refused before anything reads the chain', async t => {
    const buyer = await m.paid.newBuyer(10_000_000n)
    const { client } = await connect(t, m)
    const call = async (meta: Record<string, unknown>) => ((await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' }, _meta: meta }) as CallToolResult).structuredContent as Structured)
    let deep: unknown = 'x'
    for (let i = 0; i < 2_000; i++) deep = [deep]
    t.equal((await call({ [CREDENTIAL]: { challenge: deep, payload: {} } })).code, 'MPP_CREDENTIAL_INVALID', 'nested 2,000 deep')
    t.equal((await call({ [CREDENTIAL]: 'Payment e30' })).code, 'MPP_CREDENTIAL_INVALID', 'a string, not the credential object')
    t.equal((await call({ [CREDENTIAL]: { challenge: { id: 'x' }, payload: {} } })).code, 'MPP_CREDENTIAL_INVALID', 'not a challenge')
    const x402 = await buildExactPayment(m.paid, { buyer, feePayer: m.feePayer.address, amount: 50_000n })
    const both = await call({ [CREDENTIAL]: { challenge: {}, payload: {} }, 'x402/payment': { x402Version: 2, payload: { transaction: x402 } } })
    t.equal(both.code, 'PAYMENT_FORMS_CONFLICT')
  })
})

t.test('MPP_CHARGE=false: no challenge over MCP, and a credential is no payment', async t => {
  const m = await startX402Merchant(t, { MPP_CHARGE: 'false' })
  const { client } = await connect(t, m)
  const unpaid = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' } }) as CallToolResult
  t.notOk(unpaid._meta?.[PAYMENT_REQUIRED])
  const paid = await client.callTool({ name: 'fetch_price', arguments: { token: 'SOL' }, _meta: { [CREDENTIAL]: { challenge: {}, payload: {} } } }) as CallToolResult
  t.equal((paid.structuredContent as Structured).code, 'PAYMENT_REQUIRED')
})
