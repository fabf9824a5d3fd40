import t from 'tap'
import { getTransferSolInstruction } from '@solana-program/system'
import { generateKeyPairSigner, type Signature } from '@solana/kit'
import { startLocalnet } from '@token-merchant/localnet'
import { createTransactionReader } from '../../../lib/token-analysis/launch/transaction-reader.js'

const net = await startLocalnet()
t.teardown(() => net.stop())

const payer = await net.createWallet(1_000_000_000n)
const send = async () => await net.sendInstructions([getTransferSolInstruction({ source: payer, destination: (await generateKeyPairSigner()).address, amount: 1_000_000n })], [payer])
const signal = new AbortController().signal
/** getTransaction calls the node answered while `body` ran. */
async function reads (body: () => Promise<unknown>): Promise<number> {
  net.resetStats()
  await body()
  return net.stats().getTransaction ?? 0
}

t.test('a transaction is read from the node once while it is kept, by every part asking for it', async t => {
  const read = createTransactionReader(net.rpc)
  const signature = await send()
  t.equal(await reads(async () => await Promise.all([read(signature, signal), read(signature, signal)])), 1, 'two parts asking at once share one read')
  t.equal(await reads(async () => await read(signature, signal)), 0, 'a later analysis reads it from what was kept')
  t.same((await read(signature, signal))?.transaction.signatures, [signature])
})

t.test('a signature the node does not know is asked again next time, not kept as absent', async t => {
  const read = createTransactionReader(net.rpc)
  const unknown = '1111111111111111111111111111111111111111111111111111111111111111' as Signature
  t.equal(await read(unknown, signal), null)
  t.equal(await reads(async () => await read(unknown, signal)), 1)
})

t.test('a failed read is not kept: the next one asks the node', async t => {
  const read = createTransactionReader(net.rpc)
  const signature = await send()
  net.failMethod('getTransaction', { code: -32005, message: 'Node is behind' })
  await t.rejects(read(signature, signal))
  net.failMethod('getTransaction', null)
  t.equal(await reads(async () => await read(signature, signal)), 1)
  t.equal(await reads(async () => await read(signature, signal)), 0)
})

t.test('at most maxKept transactions are kept, the least recently read dropped first', async t => {
  const read = createTransactionReader(net.rpc, 2)
  const [first, second, third] = [await send(), await send(), await send()]
  await read(first, signal)
  await read(second, signal)
  await read(first, signal) // first is now the most recently read
  await read(third, signal) // drops second
  t.equal(await reads(async () => { await read(first, signal); await read(third, signal) }), 0, 'the two most recently read are kept')
  t.equal(await reads(async () => await read(second, signal)), 1, 'the least recently read was dropped')
})
