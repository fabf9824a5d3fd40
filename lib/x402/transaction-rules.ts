import type { Address } from '@solana/kit'
import { base58Text, keyBytes } from '../solana/base58.js'
import { messageVersionOf, readWireTransaction, sameKey, type WireTransaction } from '../solana/wire-transaction.js'
import { refusal, type Refusal } from '../contract/refusal.js'
import type { PaymentErrorCode } from '../contract/payment-error.js'

export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111'
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
/**
 * The one memo program the exact scheme takes (SPL Memo v2, MemoSq…: the official client's nonce);
 * @x402/svm refuses the other memo programs, so they are refused here too.
 */
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'
/**
 * The exact scheme's layout: unit limit, unit price, the transfer, then memos; at most 6
 * instructions in a v1 payment and 7 in a v2 one (@x402/svm's caps per version).
 */
export const MAX_INSTRUCTIONS: Readonly<Record<1 | 2, number>> = { 1: 6, 2: 7 }
const LAYOUT_INSTRUCTIONS = 3
/** What @x402/svm's decoder takes as base64: its alphabet and padding, nothing else (no spaces, no URL-safe letters). */
const BASE64 = /^[A-Za-z0-9+/=]*$/

/** 5 lamports per compute unit: the exact scheme's cap on the priority fee the fee payer pays. */
export const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n
/**
 * The highest compute-unit limit accepted. A transfer with a memo uses ~20,000 CU; Faremeter asks
 * for 50,000 and wallets that add Lighthouse assertions need more. At the price cap this bounds
 * the priority fee of one settlement to 0.001 SOL.
 */
export const MAX_COMPUTE_UNIT_LIMIT = 200_000
const SET_COMPUTE_UNIT_LIMIT = 2
const SET_COMPUTE_UNIT_PRICE = 3
const TRANSFER_CHECKED = 12
const LAMPORTS_PER_SIGNATURE = 5000n
/** The payer signs as token owner, the merchant as fee payer: nobody else. */
const MAX_SIGNERS = 2

export interface PaymentTerms {
  feePayer: Address
  mint: Address
  amount: bigint
  /** The payTo's associated token account of the mint, per token program. */
  destinations: { token: Address, token2022: Address }
  /** X402_MAX_PRIORITY_FEE_LAMPORTS: the most priority fee the fee payer pays for one payment. */
  maxPriorityFeeLamports: bigint
  /** The payload's x402Version: the most instructions differs (MAX_INSTRUCTIONS). */
  x402Version: 1 | 2
  /** The two compute budget instructions first in either order (MPP's client puts the unit price first); else the unit limit is first. */
  computeBudgetInEitherOrder?: boolean
}

/** What the rules read from a transaction that passed them. */
export interface CheckedTransfer {
  transaction: WireTransaction
  /** The transaction as the payload carried it (base64): simulated as received. */
  base64: string
  /** The token owner who signed the transfer. */
  payer: string
  amount: bigint
  /** recent blockhash the transaction lives by */
  blockhash: string
  /** What the fee payer is charged when it lands, success or failure: the signature fees and the priority fee. */
  feeLamports: bigint
  /** The token account the transfer draws from: one settlement in flight per source. */
  source: string
}

/** Known keys as bytes, decoded once: the rules compare each key read with them. */
const knownKeys = new Map<string, Uint8Array>()
function known (address: string): Uint8Array {
  let bytes = knownKeys.get(address)
  if (bytes === undefined) knownKeys.set(address, bytes = keyBytes(address))
  return bytes
}

function reject (code: PaymentErrorCode, message: string): Refusal {
  return refusal(code, message)
}

function readU64 (data: ArrayLike<number> & { buffer: ArrayBufferLike, byteOffset: number, byteLength: number }, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true)
}

function readU32 (data: ArrayLike<number> & { buffer: ArrayBufferLike, byteOffset: number, byteLength: number }, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true)
}

/**
 * Our own rules for the transaction an x402 `exact` payload carries: signed by the buyer, not sent
 * yet (the merchant co-signs and sends it at settlement), judged from its bytes alone, before the
 * library's checks and before any RPC call. (A pay-then-prove proof names a transaction that
 * already landed: lib/payment/verify-transaction.ts judges that one, by its balances.) They include every static check of @x402/svm's exact facilitator (its layout: unit
 * limit, unit price, TransferChecked, memos) and are stricter where it is looser: the fee payer
 * appears in no instruction (it pays fees and nothing else), no Lighthouse assertions, no lookup
 * tables, no third signer, the transfer's authority is the payer who signs, and a bounded
 * compute budget. The signature and the simulation follow (exact-verification.ts).
 */
export function checkPayloadTransfer (base64: string, terms: PaymentTerms): { kind: 'checked', transfer: CheckedTransfer } | Refusal {
  if (!BASE64.test(base64)) return reject('X402_INVALID_PAYLOAD', 'payload.transaction is not base64')
  const bytes = Buffer.from(base64, 'base64')
  const version = messageVersionOf(bytes)
  if (typeof version === 'number' && version !== 0) return reject('X402_TRANSACTION_NOT_ALLOWED', `transaction version ${version} is not accepted (legacy or 0)`)
  const transaction = readWireTransaction(bytes)
  if (transaction === undefined) return reject('X402_INVALID_PAYLOAD', 'payload.transaction is not a base64 Solana transaction')
  if (transaction.addressTableLookupCount > 0) {
    return reject('X402_TRANSACTION_NOT_ALLOWED', 'address lookup tables are not accepted: every account must be visible in the transaction')
  }
  const keys = transaction.staticAccounts
  const feePayer = known(terms.feePayer)
  if (!sameKey(keys[0], feePayer)) {
    return reject('X402_FEE_PAYER_MISMATCH', `the transaction's fee payer must be ${terms.feePayer} (extra.feePayer)`)
  }
  const instructions = transaction.instructions.map(ix => ({ ...ix, program: programOf(keys[ix.programIndex]) }))
  if (instructions.some(ix => ix.accountIndexes.some(index => sameKey(keys[index], feePayer)))) {
    return reject('X402_FEE_PAYER_EXPOSED', 'the fee payer may pay fees only: it appears in an instruction\'s accounts (as authority, source or otherwise)')
  }
  // Lighthouse assertions (some wallets add them) are not accepted: one can pass at simulation and
  // fail at execution, which would make the fee payer pay for a transfer that never happens.
  // A durable nonce needs a System instruction, so it is refused here too.
  const unknown = instructions.find(ix => ix.program === undefined)
  if (unknown !== undefined) {
    return reject('X402_TRANSACTION_NOT_ALLOWED', `program ${base58Text(keys[unknown.programIndex])} is not allowed (only compute budget, the token transfer and memos)`)
  }
  if (transaction.numSignerAccounts > MAX_SIGNERS) {
    return reject('X402_TRANSACTION_NOT_ALLOWED', `the transaction requires ${transaction.numSignerAccounts} signatures; only the payer's and the fee payer's are accepted`)
  }
  const maxInstructions = MAX_INSTRUCTIONS[terms.x402Version]
  if (instructions.length < LAYOUT_INSTRUCTIONS || instructions.length > maxInstructions) {
    return reject('X402_TRANSACTION_NOT_ALLOWED', `the transaction has ${instructions.length} instructions; the exact scheme takes ${LAYOUT_INSTRUCTIONS} to ${maxInstructions} (unit limit, unit price, the transfer, memos)`)
  }

  let limit: number | undefined
  let price: bigint | undefined
  for (const { data } of instructions.filter(ix => ix.program === COMPUTE_BUDGET_PROGRAM)) {
    if (data[0] === SET_COMPUTE_UNIT_LIMIT && data.length === 5 && limit === undefined) limit = readU32(data, 1)
    else if (data[0] === SET_COMPUTE_UNIT_PRICE && data.length === 9 && price === undefined) price = readU64(data, 1)
    else return reject('X402_COMPUTE_BUDGET_INVALID', 'compute budget: exactly one SetComputeUnitLimit and one SetComputeUnitPrice, nothing else')
  }
  if (limit === undefined || price === undefined) {
    return reject('X402_COMPUTE_BUDGET_INVALID', 'compute budget: SetComputeUnitLimit and SetComputeUnitPrice are both required')
  }
  const limitFirst = instructions[0].data[0] === SET_COMPUTE_UNIT_LIMIT || terms.computeBudgetInEitherOrder === true
  if (!limitFirst || instructions[0].program !== COMPUTE_BUDGET_PROGRAM || instructions[1].program !== COMPUTE_BUDGET_PROGRAM) {
    return reject('X402_COMPUTE_BUDGET_INVALID', 'compute budget: SetComputeUnitLimit is the first instruction and SetComputeUnitPrice the second')
  }
  if (price > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS) {
    return reject('X402_COMPUTE_PRICE_TOO_HIGH', `compute unit price ${price} exceeds ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS} micro-lamports`)
  }
  if (limit > MAX_COMPUTE_UNIT_LIMIT) {
    return reject('X402_COMPUTE_BUDGET_INVALID', `compute unit limit ${limit} exceeds ${MAX_COMPUTE_UNIT_LIMIT}`)
  }
  const priorityFee = priorityFeeLamports(limit, price)
  if (priorityFee > terms.maxPriorityFeeLamports) {
    return reject('X402_COMPUTE_PRICE_TOO_HIGH', `the priority fee the merchant would pay, ${priorityFee} lamports (${limit} CU at ${price} micro-lamports), exceeds its cap of ${terms.maxPriorityFeeLamports} lamports; lower the compute unit price or limit`)
  }

  const tokenInstructions = instructions.filter(ix => ix.program === TOKEN_PROGRAM || ix.program === TOKEN_2022_PROGRAM)
  const transfer = tokenInstructions[0]
  const data = transfer?.data
  if (tokenInstructions.length !== 1 || transfer !== instructions[2] || data === undefined || data[0] !== TRANSFER_CHECKED || data.length !== 10 || transfer.accountIndexes.length !== 4) {
    return reject('X402_TRANSACTION_NOT_ALLOWED', 'exactly one token instruction, a TransferChecked, is required, third after the compute budget')
  }
  const [source, mint, destination, authority] = [...transfer.accountIndexes].map(index => keys[index])
  // Only the payer's signature is checked (the fee payer's slot is empty): the authority is that signer.
  if (transaction.numSignerAccounts !== MAX_SIGNERS || transfer.accountIndexes[3] !== 1) {
    return reject('X402_SIGNATURE_INVALID', 'the transfer\'s authority must sign the transaction, as its second signer after the fee payer')
  }
  if (!sameKey(mint, known(terms.mint))) return reject('X402_MINT_MISMATCH', `the transfer must be of mint ${terms.mint}`)
  const expected = transfer.program === TOKEN_PROGRAM ? terms.destinations.token : terms.destinations.token2022
  if (!sameKey(destination, known(expected))) return reject('X402_RECIPIENT_MISMATCH', `the transfer must go to ${expected}, the payTo's associated token account`)
  const amount = readU64(data, 1)
  if (amount !== terms.amount) return reject('X402_AMOUNT_MISMATCH', `the transfer moves ${amount} base units; the price is exactly ${terms.amount}`)

  const feeLamports = BigInt(transaction.numSignerAccounts) * LAMPORTS_PER_SIGNATURE + priorityFee
  return {
    kind: 'checked',
    transfer: { transaction, base64, payer: base58Text(authority), amount, blockhash: base58Text(transaction.recentBlockhash), feeLamports, source: base58Text(source) }
  }
}

/** Which allowed program a key is (memos as one), or undefined. */
function programOf (key: Uint8Array): string | undefined {
  if (sameKey(key, known(COMPUTE_BUDGET_PROGRAM))) return COMPUTE_BUDGET_PROGRAM
  if (sameKey(key, known(TOKEN_PROGRAM))) return TOKEN_PROGRAM
  if (sameKey(key, known(TOKEN_2022_PROGRAM))) return TOKEN_2022_PROGRAM
  if (sameKey(key, known(MEMO_PROGRAM))) return MEMO_PROGRAM
  return undefined
}

/** What the fee payer pays on top of the signature fees: the unit limit times the unit price, rounded up. */
export function priorityFeeLamports (limit: number, microLamportsPerUnit: bigint): bigint {
  return (BigInt(limit) * microLamportsPerUnit + 999_999n) / 1_000_000n
}
