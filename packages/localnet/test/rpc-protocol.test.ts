import t from 'tap'
import { createSolanaRpc } from '@solana/kit'
import { startLocalnet, LOCALNET_GENESIS_HASH } from '../index.js'
import { postRaw, rpcBatch, rpcCall } from '../testing/json-rpc.js'

const PUBLIC_GENESIS_HASHES = [
  'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG', // devnet
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY', // testnet
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d', // mainnet-beta
]

t.test('JSON-RPC protocol', async (t) => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const wallet = await net.createWallet()

  t.test('cluster methods', async (t) => {
    const health = await postRaw(net.url, { jsonrpc: '2.0', id: 7, method: 'getHealth' })
    t.same(health.body, { jsonrpc: '2.0', result: 'ok', id: 7 })
    t.match(health.headers.get('content-type'), /application\/json/)
    const genesis = (await rpcCall(net.url, 'getGenesisHash')).result
    t.equal(genesis, LOCALNET_GENESIS_HASH)
    t.notOk(PUBLIC_GENESIS_HASHES.includes(genesis), 'not a public cluster genesis hash')
    const version = (await rpcCall(net.url, 'getVersion')).result
    t.type(version['solana-core'], 'string')
    t.type(version['feature-set'], 'number')
    const slot = (await rpcCall(net.url, 'getSlot')).result
    t.equal((await rpcCall(net.url, 'getBlockHeight')).result, slot)
    const latest = (await rpcCall(net.url, 'getLatestBlockhash', [{ commitment: 'finalized' }])).result
    t.equal(latest.context.slot, slot)
    t.equal(latest.value.lastValidBlockHeight, slot + 150)
    t.equal((await rpcCall(net.url, 'isBlockhashValid', [latest.value.blockhash])).result.value, true)
    t.equal((await rpcCall(net.url, 'isBlockhashValid', ['4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY'])).result.value, false)
    t.equal((await rpcCall(net.url, 'getMinimumBalanceForRentExemption', [165])).result, 2039280)
    t.equal((await rpcCall(net.url, 'getMinimumBalanceForRentExemption', [0])).result, 890880)
    const tooSoon = await rpcCall(net.url, 'getSlot', [{ minContextSlot: slot + 10 }])
    t.equal(tooSoon.error.code, -32016)
    t.same(tooSoon.error.data, { contextSlot: slot })
  })

  t.test('requestAirdrop lands a real transfer', async (t) => {
    const target = await net.createWallet(0n)
    const { result: signature } = await rpcCall(net.url, 'requestAirdrop', [target.address, 2_000_000_000])
    const { result: statuses } = await rpcCall(net.url, 'getSignatureStatuses', [[signature], { searchTransactionHistory: true }])
    t.same(statuses.value[0], { confirmationStatus: 'finalized', confirmations: null, err: null, slot: statuses.value[0].slot, status: { Ok: null } })
    t.equal((await rpcCall(net.url, 'getBalance', [target.address])).result.value, 2_000_000_000)
  })

  t.test('batches answer every request in order and count each in stats', async (t) => {
    net.resetStats()
    const answers = await rpcBatch(net.url, [
      { method: 'getBalance', params: [wallet.address] },
      { method: 'getSlot' },
      { method: 'noSuchMethod' },
      { method: 'getBalance', params: ['not-an-address'] },
      { method: 'getHealth' },
    ])
    t.equal(answers.length, 5)
    t.ok(answers.every((answer, i) => i === 0 || answer.id === answers[0].id + i), 'ids echoed in order')
    t.equal(answers[0].result.value, 10_000_000_000)
    t.type(answers[1].result, 'number')
    t.same(answers[2].error, { code: -32601, message: 'Method not found' })
    t.equal(answers[3].error.code, -32602)
    t.equal(answers[4].result, 'ok')
    t.same(net.stats(), { getBalance: 2, getSlot: 1, noSuchMethod: 1, getHealth: 1 })
  })

  t.test('protocol errors come back with HTTP 200', async (t) => {
    const malformed = await postRaw(net.url, '{"jsonrpc":"2.0","id":1,"method":')
    t.equal(malformed.status, 200)
    t.same(malformed.body, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null })

    const emptyBatch = await postRaw(net.url, '[]')
    t.same(emptyBatch.body, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null })

    const notRpc = await postRaw(net.url, { id: 3, method: 'getSlot' })
    t.same(notRpc.body, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: 3 })

    const unknown = await postRaw(net.url, { jsonrpc: '2.0', id: 4, method: 'getFoo' })
    t.equal(unknown.status, 200)
    t.same(unknown.body, { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 4 })

    t.same((await rpcCall(net.url, 'getAccountInfo', ['3E6jD48LnMeN'])).error, { code: -32602, message: 'Invalid param: WrongSize' })
    t.same((await rpcCall(net.url, 'getAccountInfo', ['0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl'])).error, { code: -32602, message: 'Invalid param: Invalid' })
    t.equal((await rpcCall(net.url, 'getBalance', [])).error.code, -32602)
    t.same((await rpcCall(net.url, 'sendTransaction', ['37u9WtQpcm6ULa3Vmu7ySnANv'])).error, { code: -32602, message: 'io error: failed to fill whole buffer' })

    const get = await fetch(net.url)
    t.equal(get.status, 405)
  })

  t.test('getTransaction: unknown is null, processed commitment is refused', async (t) => {
    const unknown = '5K4QuDxZjFkAhv8Kfj6pocDf59Cuo8EmxbRcM1d4PVaSWekF6RdC2krJHucF1FhkuSFVHCMcZ4GXnSx7zzygXMdi'
    t.same(await postRaw(net.url, { jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [unknown, { maxSupportedTransactionVersion: 0 }] }).then((r) => r.body), {
      jsonrpc: '2.0',
      result: null,
      id: 1,
    })
    const processed = await rpcCall(net.url, 'getTransaction', [unknown, { commitment: 'processed' }])
    t.same(processed.error, { code: -32602, message: 'Method does not support commitment below `confirmed`' })
    const statuses = await rpcCall(net.url, 'getSignatureStatuses', [[unknown]])
    t.same(statuses.result.value, [null])
    const tooMany = await rpcCall(net.url, 'getSignatureStatuses', [Array(257).fill(unknown)])
    t.same(tooMany.error, { code: -32602, message: 'Too many inputs provided; max 256' })
  })

  t.test('base58 account data over 128 bytes is -32600', async (t) => {
    const mint = await net.createMint({ decimals: 6, program: 'token-2022', extensions: { mintCloseAuthority: wallet.address } })
    const { error } = await rpcCall(net.url, 'getAccountInfo', [mint])
    t.same(error, { code: -32600, message: 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.' })
    const small = await rpcCall(net.url, 'getAccountInfo', [wallet.address])
    t.equal(small.result.value.data, '', 'binary (default) encoding of an empty system account')
  })

  t.test('failMethod injects JSON-RPC errors and HTTP failures', async (t) => {
    const message = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA excluded from account secondary indexes; this RPC method unavailable for key'
    net.failMethod('getTokenLargestAccounts', { code: -32010, message })
    const injected = await postRaw(net.url, { jsonrpc: '2.0', id: 'x', method: 'getTokenLargestAccounts', params: [wallet.address] })
    t.equal(injected.status, 200)
    t.same(injected.body, { jsonrpc: '2.0', error: { code: -32010, message }, id: 'x' })

    net.failMethod('getBalance', { httpStatus: 429, retryAfter: 7 })
    const limited = await postRaw(net.url, { jsonrpc: '2.0', id: 1, method: 'getBalance', params: [wallet.address] })
    t.equal(limited.status, 429)
    t.equal(limited.headers.get('retry-after'), '7')
    t.equal(limited.body.error.code, 429)
    const kit = createSolanaRpc(net.url)
    await t.rejects(kit.getBalance(wallet.address).send(), 'kit sees the HTTP error')

    net.failMethod('getBalance', { httpStatus: 503 })
    t.equal((await postRaw(net.url, { jsonrpc: '2.0', id: 1, method: 'getBalance', params: [wallet.address] })).status, 503)

    net.failMethod('getBalance', null)
    net.failMethod('getTokenLargestAccounts', null)
    t.equal((await rpcCall(net.url, 'getBalance', [wallet.address])).result.value, 10_000_000_000, 'restored')
  })

  t.test('setLatency delays responses', async (t) => {
    net.setLatency(150)
    const started = Date.now()
    await rpcCall(net.url, 'getHealth')
    t.ok(Date.now() - started >= 140, 'took the configured latency')
    net.setLatency(0)
  })

  t.test('simulateTransaction without signatures (kit compute-unit estimation)', async (t) => {
    const { getTransferSolInstruction } = await import('@solana-program/system')
    const { buildSignedTransaction } = await import('../tx-builder.js')
    const { result } = await rpcCall(net.url, 'getLatestBlockhash')
    const bytes = await buildSignedTransaction([getTransferSolInstruction({ source: wallet, destination: wallet.address, amount: 1n })], {
      feePayer: wallet,
      lifetime: result.value,
    })
    const unsigned = Buffer.from(bytes)
    unsigned.fill(0, 1, 65)
    const simulated = await rpcCall(net.url, 'simulateTransaction', [unsigned.toString('base64'), { encoding: 'base64', replaceRecentBlockhash: true, innerInstructions: true }])
    t.equal(simulated.result.value.err, null)
    t.ok(simulated.result.value.unitsConsumed > 0)
    t.equal(simulated.result.value.replacementBlockhash.blockhash, (await rpcCall(net.url, 'getLatestBlockhash')).result.value.blockhash)
    t.same(simulated.result.value.innerInstructions, [])
    const verified = await rpcCall(net.url, 'simulateTransaction', [unsigned.toString('base64'), { encoding: 'base64', sigVerify: true }])
    t.equal(verified.result.value.err, 'SignatureFailure')
    const both = await rpcCall(net.url, 'simulateTransaction', [unsigned.toString('base64'), { encoding: 'base64', sigVerify: true, replaceRecentBlockhash: true }])
    t.equal(both.error.code, -32602)
  })
})
