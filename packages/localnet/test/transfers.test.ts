import t from 'tap'
import { address } from '@solana/kit'
import { getTransferCheckedInstruction, getTransferInstruction } from '@solana-program/token'
import { getTransferSolInstruction } from '@solana-program/system'
import { startLocalnet } from '../index.js'
import { rpcCall } from '../testing/json-rpc.js'

const DEVNET_USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')

t.test('token transfers, failures and versions', async (t) => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const mint = await net.createMint({ address: DEVNET_USDC, decimals: 6 })
  const buyer = await net.createWallet()
  const merchant = await net.createWallet()
  const buyerAta = await net.mintTo(mint, buyer.address, 5_000_000n)
  const merchantAta = await net.createAta(mint, merchant.address)

  t.test('a transferChecked moves balances and shows in pre/post token balances', async (t) => {
    const signature = await net.sendInstructions(
      [getTransferCheckedInstruction({ source: buyerAta, mint, destination: merchantAta, authority: buyer, amount: 1_250_000n, decimals: 6 })],
      [buyer]
    )
    const buyerBalance = await rpcCall(net.url, 'getTokenAccountBalance', [buyerAta])
    const merchantBalance = await rpcCall(net.url, 'getTokenAccountBalance', [merchantAta])
    t.equal(buyerBalance.result.value.amount, '3750000')
    t.equal(merchantBalance.result.value.amount, '1250000')
    t.equal(merchantBalance.result.value.uiAmountString, '1.25')

    const { result: tx } = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])
    t.equal(tx.meta.err, null)
    t.same(tx.meta.status, { Ok: null })
    t.equal(tx.version, 0)
    t.equal(tx.meta.fee, 5000)
    t.equal(tx.meta.preBalances[0] - tx.meta.postBalances[0], 5000, 'fee payer paid the fee')
    const keys: string[] = tx.transaction.message.accountKeys
    const merchantIndex = keys.indexOf(merchantAta)
    const pre = tx.meta.preTokenBalances.find((b: any) => b.accountIndex === merchantIndex)
    const post = tx.meta.postTokenBalances.find((b: any) => b.accountIndex === merchantIndex)
    t.same(pre, {
      accountIndex: merchantIndex,
      mint,
      owner: merchant.address,
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      uiTokenAmount: { amount: '0', decimals: 6, uiAmount: null, uiAmountString: '0' },
    })
    t.same(post.uiTokenAmount, { amount: '1250000', decimals: 6, uiAmount: 1.25, uiAmountString: '1.25' })
    t.equal(post.owner, merchant.address)
    t.ok(tx.meta.logMessages.some((line: string) => line.startsWith('Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA invoke [1]')))
    t.ok(tx.meta.computeUnitsConsumed > 0)
    t.same(tx.meta.loadedAddresses, { readonly: [], writable: [] })
  })

  t.test('an overdraft fails preflight with the token program error', async (t) => {
    const overdraft = getTransferInstruction({ source: buyerAta, destination: merchantAta, authority: buyer, amount: 999_000_000n })
    const { error } = await rpcCall(net.url, 'sendTransaction', await wireOf(net, [overdraft], buyer))
    t.equal(error.code, -32002)
    t.equal(error.message, 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1')
    t.same(error.data.err, { InstructionError: [0, { Custom: 1 }] })
    t.ok(error.data.logs.some((line: string) => line.endsWith('failed: custom program error: 0x1')))
  })

  t.test('an overdraft sent without preflight is recorded as failed with its fee charged', async (t) => {
    const before = await rpcCall(net.url, 'getBalance', [buyer.address])
    const overdraft = getTransferInstruction({ source: buyerAta, destination: merchantAta, authority: buyer, amount: 999_000_000n })
    const signature = await net.sendInstructions([overdraft], [buyer], { skipPreflight: true, version: 'legacy' })
    const after = await rpcCall(net.url, 'getBalance', [buyer.address])
    t.equal(before.result.value - after.result.value, 5000, 'the fee is charged')

    const { result: tx } = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'json' }])
    t.same(tx.meta.err, { InstructionError: [0, { Custom: 1 }] })
    t.same(tx.meta.status, { Err: { InstructionError: [0, { Custom: 1 }] } })
    t.notOk('version' in tx, 'no version without maxSupportedTransactionVersion')
    t.equal(tx.meta.preTokenBalances.length, 2)
    t.same(
      tx.meta.preTokenBalances.map((b: any) => b.uiTokenAmount.amount),
      tx.meta.postTokenBalances.map((b: any) => b.uiTokenAmount.amount),
      'token balances unchanged'
    )
    const { result: statuses } = await rpcCall(net.url, 'getSignatureStatuses', [[signature]])
    t.same(statuses.value[0].err, { InstructionError: [0, { Custom: 1 }] })
    const { result: listed } = await rpcCall(net.url, 'getSignaturesForAddress', [buyerAta, { limit: 1 }])
    t.equal(listed[0].signature, signature)
    t.same(listed[0].err, { InstructionError: [0, { Custom: 1 }] })
  })

  t.test('a transaction whose fee cannot be paid never lands', async (t) => {
    const broke = await net.createWallet(0n)
    const ix = getTransferSolInstruction({ source: broke, destination: merchant.address, amount: 1n })
    const { error } = await rpcCall(net.url, 'sendTransaction', await wireOf(net, [ix], broke))
    t.equal(error.code, -32002)
    t.equal(error.data.err, 'AccountNotFound')
    t.equal(error.message, 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.')
    const sent = await rpcCall(net.url, 'sendTransaction', [...(await wireOf(net, [ix], broke)).slice(0, 1), { encoding: 'base64', skipPreflight: true }])
    t.type(sent.result, 'string', 'skipPreflight returns the signature')
    const { result } = await rpcCall(net.url, 'getSignatureStatuses', [[sent.result]])
    t.equal(result.value[0], null, 'but the transaction was dropped')
  })

  t.test('a v0 transaction needs maxSupportedTransactionVersion', async (t) => {
    const signature = await net.sendInstructions([getTransferSolInstruction({ source: buyer, destination: merchant.address, amount: 1_000n })], [buyer], { version: 0 })
    const refused = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'json' }])
    t.equal(refused.error.code, -32015)
    t.equal(
      refused.error.message,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0'
    )
    const { result } = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'base64', maxSupportedTransactionVersion: 0 }])
    t.equal(result.version, 0)
    t.equal(result.transaction[1], 'base64')
    t.equal(Buffer.from(result.transaction[0], 'base64')[65], 0x80, 'versioned message prefix after one signature')
    const { result: base58 } = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'base58', maxSupportedTransactionVersion: 0 }])
    t.equal(base58.transaction[1], 'base58')
  })

  t.test('a v0 transaction through an address lookup table reports loadedAddresses', async (t) => {
    const {
      compressTransactionMessageUsingAddressLookupTables, createTransactionMessage, pipe, setTransactionMessageFeePayerSigner,
      setTransactionMessageLifetimeUsingBlockhash, appendTransactionMessageInstructions, signTransactionMessageWithSigners,
      getBase64EncodedWireTransaction, generateKeyPairSigner
    } = await import('@solana/kit')
    const table = (await generateKeyPairSigner()).address
    const data = new Uint8Array(56 + 2 * 32)
    const view = new DataView(data.buffer)
    view.setUint32(0, 1, true) // ProgramState::LookupTable
    view.setBigUint64(4, 2n ** 64n - 1n, true) // deactivation_slot: active
    data.set(Buffer.from((await import('../encoding/base58.js')).decodeBase58(merchantAta)), 56)
    data.set(Buffer.from((await import('../encoding/base58.js')).decodeBase58(mint)), 88)
    net.setAccount(table, { lamports: 10_000_000n, data, owner: address('AddressLookupTab1e1111111111111111111111111') })

    const { result } = await rpcCall(net.url, 'getLatestBlockhash')
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(buyer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: result.value.blockhash, lastValidBlockHeight: BigInt(result.value.lastValidBlockHeight) }, m),
      (m) => appendTransactionMessageInstructions([getTransferCheckedInstruction({ source: buyerAta, mint, destination: merchantAta, authority: buyer, amount: 10n, decimals: 6 })], m)
    )
    const compressed = compressTransactionMessageUsingAddressLookupTables(message, { [table]: [merchantAta, mint] })
    const signed = await signTransactionMessageWithSigners(compressed)
    const { result: signature } = await rpcCall(net.url, 'sendTransaction', [getBase64EncodedWireTransaction(signed), { encoding: 'base64' }])
    const { result: tx } = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])
    t.equal(tx.meta.err, null)
    t.same(tx.meta.loadedAddresses, { readonly: [mint], writable: [merchantAta] })
    t.same(tx.transaction.message.addressTableLookups, [{ accountKey: table, readonlyIndexes: [1], writableIndexes: [0] }])
    const staticCount = tx.transaction.message.accountKeys.length
    t.equal(tx.meta.preBalances.length, staticCount + 2, 'balances cover loaded accounts too')
    const merchantBalance = tx.meta.postTokenBalances.find((b: any) => b.accountIndex === staticCount)
    t.equal(merchantBalance.owner, merchant.address, 'accountIndex points into the loaded writable keys')
    const { result: parsed } = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }])
    t.same(parsed.transaction.message.accountKeys.at(-2), { pubkey: merchantAta, signer: false, source: 'lookupTable', writable: true })
    t.notOk('loadedAddresses' in parsed.meta, 'jsonParsed skips loadedAddresses')
    const { result: listed } = await rpcCall(net.url, 'getSignaturesForAddress', [merchantAta, { limit: 1 }])
    t.equal(listed[0].signature, signature, 'loaded addresses are indexed too')
  })

  t.test('a legacy transaction reports version "legacy" when asked', async (t) => {
    const signature = await net.sendInstructions([getTransferSolInstruction({ source: buyer, destination: merchant.address, amount: 1_000n })], [buyer], { version: 'legacy' })
    const { result } = await rpcCall(net.url, 'getTransaction', [signature, { maxSupportedTransactionVersion: 0 }])
    t.equal(result.version, 'legacy')
    t.notOk('addressTableLookups' in result.transaction.message)
  })

  t.test('a bad signature is refused with -32003, with or without preflight', async (t) => {
    const [wire, config] = await wireOf(net, [getTransferSolInstruction({ source: buyer, destination: merchant.address, amount: 7n })], buyer)
    const bytes = Buffer.from(wire as string, 'base64')
    bytes[10] ^= 0xff // corrupt the signature
    for (const skipPreflight of [false, true]) {
      const { error } = await rpcCall(net.url, 'sendTransaction', [bytes.toString('base64'), { ...(config as object), skipPreflight }])
      t.equal(error.code, -32003)
      t.equal(error.message, 'Transaction signature verification failure')
    }
  })

  t.test('the same transaction twice is AlreadyProcessed', async (t) => {
    const params = await wireOf(net, [getTransferSolInstruction({ source: buyer, destination: merchant.address, amount: 9n })], buyer)
    const first = await rpcCall(net.url, 'sendTransaction', params)
    t.type(first.result, 'string')
    const second = await rpcCall(net.url, 'sendTransaction', params)
    t.equal(second.error.code, -32002)
    t.equal(second.error.data.err, 'AlreadyProcessed')
    t.equal(second.error.message, 'Transaction simulation failed: This transaction has already been processed')
  })
})

/** A signed base64 wire transaction + sendTransaction config, built without sending. */
async function wireOf (net: Awaited<ReturnType<typeof startLocalnet>>, instructions: any[], payer: any): Promise<unknown[]> {
  const { buildSignedTransaction } = await import('../tx-builder.js')
  const { result } = await rpcCall(net.url, 'getLatestBlockhash', [])
  const bytes = await buildSignedTransaction(instructions, { feePayer: payer, lifetime: result.value })
  return [Buffer.from(bytes).toString('base64'), { encoding: 'base64' }]
}
