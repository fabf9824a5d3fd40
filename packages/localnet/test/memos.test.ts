import t from 'tap'
import { AccountRole, address, getBase58Encoder, type Instruction } from '@solana/kit'
import { getAddMemoInstruction, MEMO_PROGRAM_ADDRESS } from '@solana-program/memo'
import { getTransferSolInstruction } from '@solana-program/system'
import { startLocalnet, MEMO_V1_PROGRAM, MEMO_V3_PROGRAM, MEMO_P_PROGRAM } from '../index.js'
import { rpcCall } from '../testing/json-rpc.js'

function memo (programAddress: string, text: string, signers: string[] = []): Instruction {
  return {
    programAddress: address(programAddress),
    accounts: signers.map((signer) => ({ address: address(signer), role: AccountRole.READONLY_SIGNER })),
    data: new TextEncoder().encode(text),
  }
}

t.test('memo programs really execute', async (t) => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const payer = await net.createWallet()
  const registry = await net.createWallet()

  t.equal(MEMO_PROGRAM_ADDRESS, MEMO_P_PROGRAM, 'the default @solana-program/memo address is served too')

  t.test('MemoSq memo text in getSignaturesForAddress and in the transaction', async (t) => {
    const text = '{"agent":"x"}'
    const signature = await net.sendInstructions(
      [getTransferSolInstruction({ source: payer, destination: registry.address, amount: 1_000_000n }), memo(MEMO_V3_PROGRAM, text, [payer.address])],
      [payer]
    )
    const { result: list } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { limit: 1 }])
    t.equal(list[0].signature, signature)
    t.equal(list[0].memo, `[13] ${text}`)
    t.equal(list[0].confirmationStatus, 'finalized')
    t.equal(list[0].err, null)

    const { result: tx } = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])
    const keys: string[] = tx.transaction.message.accountKeys
    const memoInstruction = tx.transaction.message.instructions.find((ix: any) => keys[ix.programIdIndex] === MEMO_V3_PROGRAM)
    t.equal(Buffer.from(getBase58Encoder().encode(memoInstruction.data)).toString('utf8'), text, 'json encoding carries the memo bytes as base58')
    t.same(memoInstruction.accounts, [keys.indexOf(payer.address)])
    t.ok(tx.meta.logMessages.includes(`Program log: Signed by ${payer.address}`))
    t.ok(tx.meta.logMessages.includes('Program log: Memo (len 13): "{\\"agent\\":\\"x\\"}"'), 'Debug-formatted memo log line')

    const { result: parsed } = await rpcCall(net.url, 'getTransaction', [signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }])
    const parsedMemo = parsed.transaction.message.instructions.find((ix: any) => ix.programId === MEMO_V3_PROGRAM)
    t.same(parsedMemo, { parsed: text, program: 'spl-memo', programId: MEMO_V3_PROGRAM, stackHeight: 1 })
    const transfer = parsed.transaction.message.instructions.find((ix: any) => ix.program === 'system')
    t.same(transfer.parsed, { info: { destination: registry.address, lamports: 1_000_000, source: payer.address }, type: 'transfer' })
  })

  t.test('several memos are joined with "; " and Memo v1 counts too', async (t) => {
    await net.sendInstructions(
      [memo(MEMO_V1_PROGRAM, 'ping'), memo(MEMO_V3_PROGRAM, 'hi', [registry.address]), memo(MEMO_V3_PROGRAM, 'héllo')],
      [payer, registry]
    )
    const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { limit: 1 }])
    t.equal(result[0].memo, '[4] ping; [2] hi; [6] héllo', 'byte length, not character count')
  })

  t.test('a memo from the default client executes; like agave, only v1/MemoSq fill the memo field', async (t) => {
    const signature = await net.sendInstructions([getAddMemoInstruction({ memo: 'default client' }), getTransferSolInstruction({ source: payer, destination: registry.address, amount: 1n })], [payer])
    const { result: tx } = await rpcCall(net.url, 'getTransaction', [signature, { maxSupportedTransactionVersion: 0 }])
    t.equal(tx.meta.err, null)
    t.ok(tx.meta.logMessages.includes('Program log: Memo (len 14): "default client"'))
    const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { limit: 1 }])
    t.equal(result[0].memo, null)
  })

  t.test('every account passed to a memo must sign', async (t) => {
    const bystander = await net.createWallet()
    const { result: blockhash } = await rpcCall(net.url, 'getLatestBlockhash', [])
    const { buildSignedTransaction } = await import('../tx-builder.js')
    // The bystander is listed as a plain readonly account (not a signer) so the transaction itself is valid.
    const unsigned: Instruction = {
      programAddress: MEMO_V3_PROGRAM,
      accounts: [{ address: bystander.address, role: AccountRole.READONLY }],
      data: new TextEncoder().encode('forged'),
    }
    const bytes = await buildSignedTransaction([unsigned], { feePayer: payer, lifetime: blockhash.value })
    const { error } = await rpcCall(net.url, 'sendTransaction', [Buffer.from(bytes).toString('base64'), { encoding: 'base64' }])
    t.equal(error.code, -32002)
    t.same(error.data.err, { InstructionError: [0, 'MissingRequiredSignature'] })
    t.equal(error.message, 'Transaction simulation failed: Error processing Instruction 0: missing required signature for instruction')
  })

  t.test('invalid UTF-8 fails in MemoSq and lists as (unparsable) when recorded', async (t) => {
    const bad: Instruction = { programAddress: MEMO_V3_PROGRAM, accounts: [], data: new Uint8Array([0xff, 0xfe]) }
    const signature = await net.sendInstructions([bad, getTransferSolInstruction({ source: payer, destination: registry.address, amount: 1n })], [payer], {
      skipPreflight: true,
    })
    const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { limit: 1 }])
    t.equal(result[0].signature, signature)
    t.equal(result[0].memo, '[2] (unparsable)')
    t.same(result[0].err, { InstructionError: [0, 'InvalidInstructionData'] })
  })

  t.test('no memo gives null', async (t) => {
    await net.sendInstructions([getTransferSolInstruction({ source: payer, destination: registry.address, amount: 5n })], [payer])
    const { result } = await rpcCall(net.url, 'getSignaturesForAddress', [registry.address, { limit: 1 }])
    t.equal(result[0].memo, null)
  })
})
