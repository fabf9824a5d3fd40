import t from 'tap'
import { transactionShapeProblem } from '../../../lib/payment/transaction-shape.js'

const KEY = 'So11111111111111111111111111111111111111112'
const NOW = 1_795_600_000

function balance (accountIndex: number, amount: string) {
  return { accountIndex: BigInt(accountIndex), mint: KEY, owner: KEY, uiTokenAmount: { amount, decimals: 6, uiAmount: null, uiAmountString: '0' } }
}

// A getTransaction answer as kit hands it over: integers as bigint.
function answer () {
  return {
    blockTime: BigInt(NOW - 5),
    slot: 1234n,
    meta: { err: null, fee: 5000n, preTokenBalances: [balance(1, '1000000')], postTokenBalances: [balance(1, '950000')] },
    transaction: { signatures: ['sig'], message: { accountKeys: [KEY, KEY], header: { numRequiredSignatures: 1n } } }
  }
}

t.test('a sound answer has no problem', async t => {
  t.equal(transactionShapeProblem(answer(), NOW), undefined)
  t.equal(transactionShapeProblem({ ...answer(), blockTime: null, meta: null }, NOW), undefined, 'null block time and meta are what nodes send for old slots')
})

t.test('an answer no node sends is refused with the path of its first bad field', async t => {
  const noKeys = answer()
  noKeys.transaction.message.accountKeys = []
  t.match(transactionShapeProblem(noKeys, NOW), /^\/transaction\/message\/accountKeys: /)
  const badAmount = answer()
  badAmount.meta.postTokenBalances[0].uiTokenAmount.amount = '1e6'
  t.match(transactionShapeProblem(badAmount, NOW), /^\/meta: /, 'inside a union, the union is named')
  t.match(transactionShapeProblem('not an object', NOW), /^\/: /)
  t.match(transactionShapeProblem({ ...answer(), blockTime: -1 }, NOW), /^\/blockTime: /)
})

t.test('what the schema cannot say: a u64 bound, a clock, a missing err', async t => {
  const { err, ...meta } = answer().meta
  t.equal(err, null)
  t.match(transactionShapeProblem({ ...answer(), meta }, NOW), /^\/meta/, 'a meta without err')
  const huge = answer()
  huge.meta.preTokenBalances[0].uiTokenAmount.amount = '18446744073709551616'
  t.equal(transactionShapeProblem(huge, NOW), '/meta/preTokenBalances: amount above u64')
  t.equal(transactionShapeProblem({ ...answer(), blockTime: BigInt(NOW + 3600) }, NOW), '/blockTime: in the future')
})

t.test('instructions, read to find a delegate, are checked too', async t => {
  const withInstructions = (instructions: unknown, innerInstructions: unknown) => {
    const tx = answer()
    return { ...tx, meta: { ...tx.meta, innerInstructions }, transaction: { ...tx.transaction, message: { ...tx.transaction.message, instructions } } }
  }
  const transfer = { programIdIndex: 1n, accounts: [0n, 1n, 0n], data: '3Bxs4ThwQbE4vyj5', stackHeight: null }
  t.equal(transactionShapeProblem(withInstructions([transfer], [{ index: 0n, instructions: [transfer] }]), NOW), undefined, 'as a node sends them')
  t.equal(transactionShapeProblem(withInstructions([transfer], null), NOW), undefined, 'no inner instructions recorded')
  t.match(transactionShapeProblem(withInstructions([{ ...transfer, accounts: ['zero'] }], []), NOW), /^\/transaction\/message\/instructions/)
  t.match(transactionShapeProblem(withInstructions([{ ...transfer, data: 7 }], []), NOW), /^\/transaction\/message\/instructions/)
  t.match(transactionShapeProblem(withInstructions([], [{ index: 0n, instructions: [{ programIdIndex: -1 }] }]), NOW), /^\/meta/)
})
