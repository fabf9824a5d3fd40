import t from 'tap'
import { AccountRole, type Instruction } from '@solana/kit'
import { startLocalnet, MEMO_V3_PROGRAM } from '../index.js'
import { buildSignedTransaction } from '../tx-builder.js'
import { rpcBatch, rpcCall } from '../testing/json-rpc.js'

const TOTAL = 2500
const BATCH = 100

t.test('2,500 transactions to one address paginate with before/until', async (t) => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const registry = await net.createWallet()

  // Memo-only transactions paid and signed by the registry wallet: cheap, and each lists the address.
  const sent: string[] = []
  for (let start = 0; start < TOTAL; start += BATCH) {
    const { result } = await rpcCall(net.url, 'getLatestBlockhash', [])
    const wires: string[] = []
    for (let i = start; i < start + BATCH; i++) {
      const memo: Instruction = {
        programAddress: MEMO_V3_PROGRAM,
        accounts: [{ address: registry.address, role: AccountRole.READONLY_SIGNER }],
        data: new TextEncoder().encode(`n=${i}`),
      }
      const bytes = await buildSignedTransaction([memo], { feePayer: registry, lifetime: result.value })
      wires.push(Buffer.from(bytes).toString('base64'))
    }
    const answers = await rpcBatch(
      net.url,
      wires.map((wire) => ({ method: 'sendTransaction', params: [wire, { encoding: 'base64' }] }))
    )
    for (const answer of answers) {
      if (typeof answer.result !== 'string') throw new Error(`send failed: ${JSON.stringify(answer.error)}`)
      sent.push(answer.result)
    }
  }
  t.equal(sent.length, TOTAL)
  const newestFirst = [...sent].reverse()

  t.test('pages of 1000 with before', async (t) => {
    const collected: any[] = []
    let before: string | undefined
    for (;;) {
      const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, before ? { limit: 1000, before } : { limit: 1000 }])
      collected.push(...result)
      if (result.length < 1000) break
      before = result.at(-1).signature
    }
    // +1: the airdrop that funded the registry wallet is the oldest entry
    t.equal(collected.length, TOTAL + 1)
    t.same(collected.slice(0, TOTAL).map((entry) => entry.signature), newestFirst, 'newest first, no gap, no duplicate')
    t.ok(collected.every((entry, i) => i === 0 || entry.slot < collected[i - 1].slot), 'slots strictly decreasing')
    t.equal(collected[0].memo, `[6] n=${TOTAL - 1}`)
    t.equal(collected[TOTAL - 1].memo, '[3] n=0')
  })

  t.test('until stops before the given signature (exclusive)', async (t) => {
    const until = sent[TOTAL - 11]
    const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { until }])
    t.same(result.map((entry: any) => entry.signature), newestFirst.slice(0, 10))
  })

  t.test('before and until together give the window between them', async (t) => {
    const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { before: sent[1500], until: sent[1000], limit: 1000 }])
    t.equal(result.length, 499)
    t.equal(result[0].signature, sent[1499])
    t.equal(result.at(-1).signature, sent[1001])
  })

  t.test('default limit is 1000', async (t) => {
    const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address])
    t.equal(result.length, 1000)
  })

  t.test('limit outside 1..1000 is -32602', async (t) => {
    for (const limit of [0, 1001]) {
      const { error } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { limit }])
      t.same(error, { code: -32602, message: 'Invalid limit; max 1000' })
    }
  })

  t.test('an unknown address has no history; an unknown before gives nothing', async (t) => {
    const other = await net.createWallet(0n)
    const empty = await rpcCall(net.url, 'getSignaturesForAddress', [other.address])
    t.same(empty.result, [])
    const unknown = '1'.repeat(64)
    const none = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { before: unknown }])
    t.same(none.result, [])
  })
})
