import { formatTokenAmount } from './catalog.js'
import type { OwnerMultisig } from './owner-multisig.js'
import { delegatedOwners } from './transfer-delegates.js'
import { refusal, type Refusal } from '../contract/refusal.js'

/** An instruction as encoding "json" gives it: indexes into the account keys, data in base58. */
export interface CompiledInstruction {
  programIdIndex: number | bigint
  accounts: ReadonlyArray<number | bigint>
  data: string
}

/** The parts of a getTransaction (encoding "json") result the check reads. */
export interface PaymentTransaction {
  blockTime: bigint | number | null
  meta: {
    err: unknown
    preTokenBalances?: readonly TokenBalance[] | null
    postTokenBalances?: readonly TokenBalance[] | null
    innerInstructions?: ReadonlyArray<{ instructions: readonly CompiledInstruction[] }> | null
  } | null
  transaction: {
    message: {
      accountKeys: readonly string[]
      header: { numRequiredSignatures: number }
      instructions?: readonly CompiledInstruction[]
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
  /**
   * Owners of the paying tokens that are SPL Token multisigs, read from the chain (ownersToReadAsMultisig):
   * a multisig never signs, so the buyer names it, or one of its signers who signed the transaction.
   */
  multisigs?: ReadonlyMap<string, OwnerMultisig>
  /**
   * The proof carries the named wallet's request-bound signature: a delegate that moved an
   * owner's tokens may then claim them (without it, a delegate's proof is refused as unproven).
   */
  walletSignatureProven?: boolean
}

/** At most this many multisig owners are read for one proof: a payment has one source in practice. */
const MAX_MULTISIG_READS = 2

/** A landed transaction that pays: what the merchant received, and when it landed; or why it does not pay. */
export type PaymentCheck =
  | { kind: 'paid', paid: bigint, blockTime: number }
  | Refusal

/**
 * What the merchant received: the rise, from before to after the transaction, of the payment
 * mint's balance over every token account the payment address owns. An account created in the
 * same transaction has no "before" entry and starts at 0; one closed has no "after" entry and
 * ends at 0. Token and Token-2022 report balances the same way, so a transfer fee withheld from
 * the recipient is not counted.
 */
export function amountReceived (meta: NonNullable<PaymentTransaction['meta']>, payTo: string, mint: string): bigint {
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

/** How much of the payment mint each owner's token accounts lost (or gained: negative) in the transaction. */
function spentByOwner (meta: NonNullable<PaymentTransaction['meta']>, mint: string): Map<string, bigint> {
  const spent = new Map<string, bigint>()
  const add = (balance: TokenBalance, sign: bigint) => {
    if (balance.mint !== mint || balance.owner === undefined) return
    spent.set(balance.owner, (spent.get(balance.owner) ?? 0n) + sign * BigInt(balance.uiTokenAmount.amount))
  }
  for (const balance of meta.preTokenBalances ?? []) add(balance, 1n)
  for (const balance of meta.postTokenBalances ?? []) add(balance, -1n)
  return spent
}

export const signersOf = (tx: PaymentTransaction) => tx.transaction.message.accountKeys.slice(0, tx.transaction.message.header.numRequiredSignatures)

/**
 * The payer of a landed transaction whose proof names none (MPP's push charge carries only the
 * signature): the signer who spent the most of the payment mint, or undefined when no signer
 * spent any (then no one can be said to have paid).
 */
export function payerOfLanded (tx: PaymentTransaction, mint: string): string | undefined {
  if (tx.meta === null) return undefined
  const spent = spentByOwner(tx.meta, mint)
  let payer: string | undefined
  let most = 0n
  for (const signer of signersOf(tx)) {
    const amount = spent.get(signer) ?? 0n
    if (amount > most) [payer, most] = [signer, amount]
  }
  return payer
}

/**
 * The token owners to read from the chain as possible multisigs before checking a proof: none in
 * the common case (the named wallet signed and spent its own tokens), and none for a transaction
 * that failed, pays the merchant less than the price or names a wallet that neither signed nor
 * spent (a stranger): only a proof that can pass costs an RPC read. Otherwise the owners that
 * spent without signing (a multisig never signs): the named wallet itself, or, when it signed,
 * the owners whose member it may be.
 */
export function ownersToReadAsMultisig (tx: PaymentTransaction, expected: Omit<PaymentExpectation, 'multisigs'>): string[] {
  if (tx.meta === null || (tx.meta.err !== null && tx.meta.err !== undefined)) return []
  if (amountReceived(tx.meta, expected.payTo, expected.mint) < expected.price) return []
  const signers = signersOf(tx)
  const spent = spentByOwner(tx.meta, expected.mint)
  if (signers.includes(expected.payer) && (spent.get(expected.payer) ?? 0n) > 0n) return []
  const unsignedOwners = [...spent]
    .filter(([owner, spent]) => spent > 0n && !signers.includes(owner)).map(([owner]) => owner)
  if (signers.includes(expected.payer)) return unsignedOwners.slice(0, MAX_MULTISIG_READS)
  return unsignedOwners.includes(expected.payer) ? [expected.payer] : []
}

/**
 * What the named wallet may claim of what each owner spent: its own tokens when it signed, a
 * multisig's when it is that multisig or a member of it who signed, an owner's whose tokens it
 * moved as their delegate when it signed and proved the request (`delegates`: the owners it
 * moved tokens for). Never the fee payer's or a stranger's standing: paying the fee, or signing
 * without being the owner, a member or the transfer's authority, gives none.
 */
function payerSpent (tx: PaymentTransaction, meta: NonNullable<PaymentTransaction['meta']>, expected: PaymentExpectation, delegates: ReadonlySet<string>): bigint {
  const signed = signersOf(tx).includes(expected.payer)
  let spent = 0n
  for (const [owner, amount] of spentByOwner(meta, expected.mint)) {
    const multisig = expected.multisigs?.get(owner)
    const authorised = owner === expected.payer
      ? signed || multisig !== undefined
      : signed && ((multisig !== undefined && multisig.signers.includes(expected.payer)) ||
        (expected.walletSignatureProven === true && delegates.has(owner)))
    if (authorised) spent += amount
  }
  return spent
}

const NO_DELEGATIONS: ReadonlySet<string> = new Set()

/** Kit parses every RPC number into a bigint; the error goes back to the buyer as plain JSON. */
function toJson (value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => typeof v === 'bigint' ? Number(v) : v))
}

/**
 * Decides whether a transaction that landed (a pay-then-prove proof names it) pays for one
 * delivery, by what it moved: the balances before and after, its signers, its age. Pure: the same
 * transaction and expectation always give the same answer. Checks run in the order the buyer
 * would fix them. (An x402 payload's transaction, not sent yet, is judged by its bytes instead:
 * lib/x402/transaction-rules.ts.)
 */
export function checkLandedPayment (tx: PaymentTransaction, expected: PaymentExpectation): PaymentCheck {
  if (tx.meta === null) {
    return refusal('PAYMENT_NOT_FOUND', 'The transaction has no status metadata yet; retry shortly')
  }
  if (tx.meta.err !== null && tx.meta.err !== undefined) {
    return refusal('PAYMENT_FAILED', 'The payment transaction failed on chain and moved no funds', { details: { transactionError: toJson(tx.meta.err) } })
  }
  if (!signersOf(tx).includes(expected.payer) && expected.multisigs?.has(expected.payer) !== true) {
    return refusal('PAYER_MISMATCH', 'x-payment-wallet did not sign the payment transaction (nor is it the multisig that owns the tokens that paid)')
  }

  const paid = amountReceived(tx.meta, expected.payTo, expected.mint)
  if (paid < expected.price) {
    return refusal('AMOUNT_TOO_LOW',
      `The transaction paid ${formatTokenAmount(paid > 0n ? paid : 0n)} to the merchant in the payment token; ${formatTokenAmount(expected.price)} is required ` +
        '(a wrong mint or recipient pays nothing)',
      { details: { paid: (paid > 0n ? paid : 0n).toString(), required: expected.price.toString() } })
  }

  // A signer is not enough (a fee payer signs too): the wallet must own the tokens that paid, or
  // be their owner multisig, or one of its signers, or the delegate that moved them.
  // The instructions are decoded only when owning, or a multisig, gives the wallet nothing: the
  // common proof (the payer spent its own tokens) never reads them.
  const owned = payerSpent(tx, tx.meta, expected, NO_DELEGATIONS) > 0n
  const delegates = owned ? NO_DELEGATIONS : delegatedOwners(tx, expected.mint).get(expected.payer) ?? NO_DELEGATIONS
  if (!owned && payerSpent(tx, tx.meta, expected, delegates) <= 0n) {
    if (delegates.size > 0 && expected.walletSignatureProven !== true) {
      return refusal('WALLET_SIGNATURE_REQUIRED',
        'x-payment-wallet moved the tokens that paid as their delegate: a delegate proves with x-payment-wallet-signature (extra.proofHeaders.walletSignature)')
    }
    return refusal('PAYER_MISMATCH', 'x-payment-wallet is not the owner of the tokens that paid, nor a signer of their owner multisig, nor the delegate that moved them')
  }

  if (tx.blockTime === null) {
    return refusal('PAYMENT_NOT_FOUND', 'The transaction has no block time yet; retry shortly')
  }
  const blockTime = Number(tx.blockTime)
  const age = expected.nowSeconds - blockTime
  if (age > expected.maxAgeSeconds) {
    return refusal('PAYMENT_EXPIRED', `The payment is ${age} s old; payments older than ${expected.maxAgeSeconds} s are not accepted`,
      { details: { ageSeconds: age, maxAgeSeconds: expected.maxAgeSeconds } })
  }
  return { kind: 'paid', paid, blockTime }
}
