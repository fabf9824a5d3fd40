import { formatTokenAmount } from './catalog.js'
import type { PaymentRejection } from './payment-error.js'

/** The parts of a getTransaction (encoding "json") result the check reads. */
export interface PaymentTransaction {
  blockTime: bigint | number | null
  meta: {
    err: unknown
    preTokenBalances?: readonly TokenBalance[] | null
    postTokenBalances?: readonly TokenBalance[] | null
  } | null
  transaction: {
    message: {
      accountKeys: readonly string[]
      header: { numRequiredSignatures: number }
    }
  }
}

interface TokenBalance {
  accountIndex: number
  mint: string
  owner?: string
  uiTokenAmount: { amount: string }
}

export interface PaymentExpectation {
  payer: string
  payTo: string
  mint: string
  price: bigint
  maxAgeSeconds: number
  nowSeconds: number
}

export type PaymentCheck =
  | { ok: true, paid: bigint, blockTime: number }
  | { ok: false, rejection: PaymentRejection, paid?: bigint }

/**
 * What the merchant received: the rise, from before to after the transaction, of the payment
 * mint's balance over every token account the payment address owns. An account created in the
 * same transaction has no "before" entry and starts at 0; one closed has no "after" entry and
 * ends at 0. Token and Token-2022 report balances the same way, so a transfer fee withheld from
 * the recipient is not counted.
 */
function amountReceived (meta: NonNullable<PaymentTransaction['meta']>, payTo: string, mint: string): bigint {
  const ours = (balances: readonly TokenBalance[] | null | undefined) => {
    const byAccount = new Map<number, bigint>()
    for (const balance of balances ?? []) {
      if (balance.mint === mint && balance.owner === payTo) byAccount.set(balance.accountIndex, BigInt(balance.uiTokenAmount.amount))
    }
    return byAccount
  }
  const before = ours(meta.preTokenBalances)
  const after = ours(meta.postTokenBalances)
  let received = 0n
  for (const index of new Set([...before.keys(), ...after.keys()])) {
    received += (after.get(index) ?? 0n) - (before.get(index) ?? 0n)
  }
  return received
}

/** How much of the payment mint the payer's own token accounts lost in the transaction. */
function amountSpentBy (meta: NonNullable<PaymentTransaction['meta']>, payer: string, mint: string): bigint {
  let spent = 0n
  for (const balance of meta.preTokenBalances ?? []) {
    if (balance.mint === mint && balance.owner === payer) spent += BigInt(balance.uiTokenAmount.amount)
  }
  for (const balance of meta.postTokenBalances ?? []) {
    if (balance.mint === mint && balance.owner === payer) spent -= BigInt(balance.uiTokenAmount.amount)
  }
  return spent
}

/** Kit parses every RPC number into a bigint; the error goes back to the buyer as plain JSON. */
function toJson (value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => typeof v === 'bigint' ? Number(v) : v))
}

/**
 * Decides whether a confirmed transaction pays for one delivery. Pure: the same transaction
 * and expectation always give the same answer. Checks run in the order the buyer would fix them.
 */
export function checkPaymentTransaction (tx: PaymentTransaction, expected: PaymentExpectation): PaymentCheck {
  if (tx.meta === null) {
    return { ok: false, rejection: { code: 'PAYMENT_NOT_FOUND', message: 'The transaction has no status metadata yet; retry shortly' } }
  }
  if (tx.meta.err !== null && tx.meta.err !== undefined) {
    return {
      ok: false,
      rejection: { code: 'PAYMENT_FAILED', message: 'The payment transaction failed on chain and moved no funds', details: { transactionError: toJson(tx.meta.err) } }
    }
  }
  const { accountKeys, header } = tx.transaction.message
  if (!accountKeys.slice(0, header.numRequiredSignatures).includes(expected.payer)) {
    return { ok: false, rejection: { code: 'PAYER_MISMATCH', message: 'x-payment-wallet did not sign the payment transaction' } }
  }

  const paid = amountReceived(tx.meta, expected.payTo, expected.mint)
  if (paid < expected.price) {
    return {
      ok: false,
      paid,
      rejection: {
        code: 'AMOUNT_TOO_LOW',
        message: `The transaction paid ${formatTokenAmount(paid > 0n ? paid : 0n)} to the merchant in the payment token; ${formatTokenAmount(expected.price)} is required ` +
          '(a wrong mint or recipient pays nothing)',
        details: { paid: (paid > 0n ? paid : 0n).toString(), required: expected.price.toString() }
      }
    }
  }

  // A signer is not enough (a fee payer signs too): the wallet must own the tokens that paid.
  if (amountSpentBy(tx.meta, expected.payer, expected.mint) <= 0n) {
    return { ok: false, rejection: { code: 'PAYER_MISMATCH', message: 'x-payment-wallet is not the owner of the tokens that paid' } }
  }

  if (tx.blockTime === null) {
    return { ok: false, paid, rejection: { code: 'PAYMENT_NOT_FOUND', message: 'The transaction has no block time yet; retry shortly' } }
  }
  const blockTime = Number(tx.blockTime)
  const age = expected.nowSeconds - blockTime
  if (age > expected.maxAgeSeconds) {
    return {
      ok: false,
      paid,
      rejection: {
        code: 'PAYMENT_EXPIRED',
        message: `The payment is ${age} s old; payments older than ${expected.maxAgeSeconds} s are not accepted`,
        details: { ageSeconds: age, maxAgeSeconds: expected.maxAgeSeconds }
      }
    }
  }
  return { ok: true, paid, blockTime }
}
