import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { PaymentTransaction } from './verify-transaction.js'

const U64_MAX = 2n ** 64n - 1n
// Seconds a node's block time may run ahead of this clock before the answer is not believed.
const CLOCK_SKEW_SECONDS = 120

// kit parses JSON integers as bigint and narrows some back to numbers: accept either.
const WholeNumber = Type.Union([Type.BigInt({ minimum: 0n }), Type.Integer({ minimum: 0 })])
const TokenBalance = Type.Object({
  accountIndex: WholeNumber,
  mint: Type.String({ minLength: 32, maxLength: 44 }),
  owner: Type.Optional(Type.String({ minLength: 32, maxLength: 44 })),
  uiTokenAmount: Type.Object({ amount: Type.String({ pattern: '^[0-9]{1,20}$' }) })
})
const Balances = Type.Optional(Type.Union([Type.Array(TokenBalance), Type.Null()]))
const Instruction = Type.Object({
  programIdIndex: WholeNumber,
  accounts: Type.Array(WholeNumber, { maxItems: 256 }),
  data: Type.String({ maxLength: 2048 })
})
// A transaction is at most 1,232 bytes: these bounds are far above anything a node can send.
const Instructions = Type.Array(Instruction, { maxItems: 256 })
const InnerInstructions = Type.Optional(Type.Union([Type.Array(Type.Object({ instructions: Instructions }), { maxItems: 256 }), Type.Null()]))

/** The getTransaction fields the payment check reads, as a node must send them. */
const PaymentTransactionShape = Type.Object({
  blockTime: Type.Union([WholeNumber, Type.Null()]),
  meta: Type.Union([Type.Object({ err: Type.Unknown(), preTokenBalances: Balances, postTokenBalances: Balances, innerInstructions: InnerInstructions }), Type.Null()]),
  transaction: Type.Object({
    message: Type.Object({
      accountKeys: Type.Array(Type.String({ minLength: 32, maxLength: 44 }), { minItems: 1 }),
      header: Type.Object({ numRequiredSignatures: WholeNumber }),
      instructions: Type.Optional(Instructions)
    })
  })
})

// Compiled once: every paid call checks one answer, and the compiled check is a tenth of the
// interpreted one; the error walk runs only for an answer that fails it.
const paymentTransactionShape = TypeCompiler.Compile(PaymentTransactionShape)

/**
 * Where a getTransaction answer is not what a node sends (a missing `meta.err`, an amount that is
 * no u64, a block time in the future, ...), the path of the first bad field; undefined when it is
 * sound. Such an answer is the RPC's fault, never a reason to deliver.
 */
export function transactionShapeProblem (tx: unknown, nowSeconds: number): string | undefined {
  if (!paymentTransactionShape.Check(tx)) {
    const error = paymentTransactionShape.Errors(tx).First()
    return error === undefined ? '/: not a transaction' : `${error.path || '/'}: ${error.message}`
  }
  const checked = tx as PaymentTransaction
  const meta = checked.meta
  if (meta !== null && !('err' in meta)) return '/meta/err: missing'
  for (const key of ['preTokenBalances', 'postTokenBalances'] as const) {
    if (meta?.[key]?.some(balance => BigInt(balance.uiTokenAmount.amount) > U64_MAX) === true) return `/meta/${key}: amount above u64`
  }
  if (checked.blockTime !== null && Number(checked.blockTime) > nowSeconds + CLOCK_SKEW_SECONDS) return '/blockTime: in the future'
  return undefined
}
