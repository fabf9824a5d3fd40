import {
  AccountRole,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  isSolanaError,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash
} from '@solana/kit'
import bs58 from 'bs58'
import fc from 'fast-check'
import t from 'tap'
import { base58Text } from '../../../lib/solana/base58.js'
import { messageVersionOf, readWireTransaction, withSignature } from '../../../lib/solana/wire-transaction.js'

const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(bytes => bs58.encode(bytes) as Address)
const instruction = fc.record({
  programAddress: key,
  accounts: fc.array(fc.record({ address: key, role: fc.constantFrom(AccountRole.READONLY, AccountRole.WRITABLE, AccountRole.READONLY_SIGNER, AccountRole.WRITABLE_SIGNER) }), { maxLength: 4 }),
  data: fc.uint8Array({ maxLength: 40 })
})
/**
 * Transactions as kit compiles and encodes them: legacy or v0, any instructions. What kit refuses
 * to compile (13 signers, a program that pays the fee: keys collide as fast-check shrinks them) is
 * left out.
 */
const transactionBytes = fc.record({ version: fc.constantFrom('legacy' as const, 0 as const), feePayer: key, blockhash: key, instructions: fc.array(instruction, { maxLength: 5 }) })
  .map(({ version, feePayer, blockhash, instructions }) => {
    const message = pipe(
      createTransactionMessage({ version }),
      m => setTransactionMessageFeePayer(feePayer, m),
      m => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as unknown as Blockhash, lastValidBlockHeight: 1n }, m),
      m => appendTransactionMessageInstructions(instructions, m)
    )
    try {
      return new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)))
    } catch (error) {
      if (isSolanaError(error)) return undefined
      throw error
    }
  })
  .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined)

const transactionDecoder = getTransactionDecoder()
const messageDecoder = getCompiledTransactionMessageDecoder()

/** What kit reads in the same bytes, in the reader's terms. */
function kitReading (bytes: Uint8Array) {
  const transaction = transactionDecoder.decode(bytes)
  const compiled = messageDecoder.decode(transaction.messageBytes)
  return {
    version: compiled.version,
    numSignerAccounts: compiled.header.numSignerAccounts,
    staticAccounts: compiled.staticAccounts.map(String),
    recentBlockhash: compiled.lifetimeToken,
    instructions: ('instructions' in compiled ? compiled.instructions : []).map(ix => ({ programIndex: ix.programAddressIndex, accountIndexes: [...(ix.accountIndices ?? [])], data: [...(ix.data ?? [])] }))
  }
}

function ourReading (bytes: Uint8Array) {
  const read = readWireTransaction(bytes)
  if (read === undefined) return undefined
  return {
    version: read.version,
    numSignerAccounts: read.numSignerAccounts,
    staticAccounts: read.staticAccounts.map(base58Text),
    recentBlockhash: base58Text(read.recentBlockhash),
    instructions: read.instructions.map(ix => ({ programIndex: ix.programIndex, accountIndexes: [...ix.accountIndexes], data: [...ix.data] }))
  }
}

t.test('any transaction kit encodes reads the same as kit decodes it', async t => {
  fc.assert(fc.property(transactionBytes, bytes => {
    t.same(ourReading(bytes), kitReading(bytes))
  }), { numRuns: 300 })
  t.pass('300 transactions read alike')
})

t.test('damaged bytes never throw, and whatever is read is what kit reads', async t => {
  const damaged = fc.tuple(transactionBytes, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('flip', 'truncate', 'append'))
    .map(([bytes, at, value, how]) => {
      const index = at % bytes.length
      if (how === 'truncate') return bytes.subarray(0, index)
      if (how === 'append') return Uint8Array.from([...bytes, value])
      const copy = Uint8Array.from(bytes)
      copy[index] = value
      return copy
    })
  let accepted = 0
  fc.assert(fc.property(damaged, bytes => {
    const ours = ourReading(bytes)
    if (ours === undefined) return
    accepted++
    t.same(ours, kitReading(bytes))
  }), { numRuns: 1000 })
  t.ok(accepted > 0, `some damaged transactions still read (${accepted}), each as kit reads it`)
})

t.test('the fee payer\'s signature lands in the first slot, the rest untouched', async t => {
  const bytes = fc.sample(transactionBytes, 1)[0]
  const read = readWireTransaction(bytes)
  if (read === undefined) throw new Error('a kit transaction did not read')
  const signature = new Uint8Array(64).fill(9)
  const signed = Buffer.from(withSignature(read, 0, signature), 'base64')
  const decoded = transactionDecoder.decode(signed)
  t.same([...(Object.values(decoded.signatures)[0] ?? [])], [...signature])
  t.same([...decoded.messageBytes], [...read.messageBytes])
})

t.test('a later message version is named, not read with the v0 layout', async t => {
  const bytes = Uint8Array.from(fc.sample(transactionBytes, 1)[0])
  const messageStart = 1 + 64 * bytes[0]
  bytes[messageStart] = 0x81
  t.equal(messageVersionOf(bytes), 1)
  t.equal(readWireTransaction(bytes), undefined)
  t.equal(messageVersionOf(new Uint8Array([2, 0])), undefined, 'too short to say')
})
