import t from 'tap'
import { getTransferSolInstruction } from '@solana-program/system'
import { startLocalnet } from '../index.js'
import { buildSignedTransaction } from '../tx-builder.js'
import { rpcCall } from '../testing/json-rpc.js'

t.test('slots, block times and blockhash expiry', async (t) => {
  const start = 1_800_000_000
  const net = await startLocalnet({ startTime: start, clock: 'manual' })
  t.teardown(() => net.stop())
  const alice = await net.createWallet()
  const bob = await net.createWallet()
  const pay = (amount: bigint) => net.sendInstructions([getTransferSolInstruction({ source: alice, destination: bob.address, amount })], [alice])

  t.test('each transaction lands in a slot of its own, stamped with the chain clock', async (t) => {
    const first = await pay(1n)
    const second = await pay(2n)
    const a = (await rpcCall(net.url, 'getTransaction', [first, { maxSupportedTransactionVersion: 0 }])).result
    const b = (await rpcCall(net.url, 'getTransaction', [second, { maxSupportedTransactionVersion: 0 }])).result
    t.equal(b.slot, a.slot + 1)
    t.equal((await rpcCall(net.url, 'getSlot')).result, b.slot)
    t.equal(a.blockTime, start)
    t.equal(net.now(), start, 'manual clock stands still')
  })

  t.test('advanceClock moves blockTime', async (t) => {
    net.advanceClock(3600)
    t.equal(net.now(), start + 3600)
    const signature = await pay(3n)
    const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [bob.address, { limit: 1 }])
    t.equal(result[0].signature, signature)
    t.equal(result[0].blockTime, start + 3600)
    t.throws(() => net.advanceClock(-1))
  })

  t.test('a blockhash expires after 150 blocks', async (t) => {
    const { result } = await rpcCall(net.url, 'getLatestBlockhash')
    const bytes = await buildSignedTransaction([getTransferSolInstruction({ source: alice, destination: bob.address, amount: 4n })], { feePayer: alice, lifetime: result.value })
    net.advanceSlots(149)
    t.equal((await rpcCall(net.url, 'isBlockhashValid', [result.value.blockhash])).result.value, true, 'still valid for the next block')
    net.advanceSlots(1)
    t.equal((await rpcCall(net.url, 'isBlockhashValid', [result.value.blockhash])).result.value, false)
    t.ok((await rpcCall(net.url, 'getBlockHeight')).result >= result.value.lastValidBlockHeight)
    const { error } = await rpcCall(net.url, 'sendTransaction', [Buffer.from(bytes).toString('base64'), { encoding: 'base64' }])
    t.equal(error.code, -32002)
    t.equal(error.message, 'Transaction simulation failed: Blockhash not found')
    t.equal(error.data.err, 'BlockhashNotFound')
    t.same(error.data.logs, [])
  })

  t.test('the wall clock mode follows time from startTime', async (t) => {
    const wall = await startLocalnet({ startTime: 1_700_000_000 })
    t.teardown(() => wall.stop())
    t.ok(wall.now() >= 1_700_000_000 && wall.now() <= 1_700_000_002)
    wall.advanceClock(60)
    t.ok(wall.now() >= 1_700_000_060)
  })
})
