import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner
} from '@solana/kit'
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction } from '@solana-program/token'
import { METRIC_CHANNELS } from '../metrics/events.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { awaitConfirmation } from './settlement.js'
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './transaction-rules.js'

export type FeePayerState = 'ok' | 'low' | 'unchecked'

/**
 * Watches the fee payer's SOL. A low balance is logged (once when it goes low, again when it
 * recovers) and reported; it never stops the service: the seed flow needs no fee payer.
 */
export function createFeePayerMonitor (options: {
  rpc: SolanaRpc
  address: Address
  minLamports: bigint
  log: { info: (o: object, m: string) => void, warn: (o: object, m: string) => void }
}) {
  let state: FeePayerState = 'unchecked'
  let lamports: bigint | undefined
  return {
    state: () => state,
    lamports: () => lamports,
    async check (): Promise<FeePayerState> {
      try {
        lamports = (await options.rpc.getBalance(options.address).send()).value
      } catch {
        return state
      }
      const next: FeePayerState = lamports < options.minLamports ? 'low' : 'ok'
      const fields = { feePayer: options.address, lamports: lamports.toString(), floor: options.minLamports.toString() }
      if (state === 'unchecked') options.log.info(fields, 'x402 fee payer balance')
      if (next === 'low' && state !== 'low') options.log.warn(fields, 'x402 fee payer balance is below X402_FEE_PAYER_MIN_LAMPORTS: fund it, or x402 settlements will fail (503) once it cannot pay fees')
      if (next === 'ok' && state === 'low') options.log.info(fields, 'x402 fee payer balance is above the floor again')
      state = next
      return state
    }
  }
}

/**
 * When to read the fee payer's balance: on `check()` (at start, every minute), and after the fee
 * payer spent on a settlement (the x402 method publishes each spend, lib/metrics/events.ts), at
 * most once per `minIntervalMs`, so a burst of settlements costs one read.
 */
export function watchFeePayerBalance<T> (options: { read: () => Promise<T>, minIntervalMs: number, now?: () => number }) {
  const now = options.now ?? Date.now
  let lastRead = -Infinity
  const check = async (): Promise<T> => {
    lastRead = now()
    return await options.read()
  }
  const afterSpend = () => { if (now() - lastRead > options.minIntervalMs) check().catch(() => {}) }
  METRIC_CHANNELS.feePayerSpends.subscribe(afterSpend)
  return {
    check,
    /** Stops listening (the app closed). */
    stop: () => { METRIC_CHANNELS.feePayerSpends.unsubscribe(afterSpend) }
  }
}

/** A token account with the extensions an associated one gets (Token-2022's ImmutableOwner: 170 bytes). */
const TOKEN_ACCOUNT_BYTES = 170n
/** The creating transaction's fee, with room for a priority fee. */
const CREATE_FEE_LAMPORTS = 10_000n

/**
 * Creates payTo's associated token account for the mint if it is missing, paid by the fee payer:
 * official clients add no create-account instruction, so without it their transfers fail.
 * Idempotent (the instruction is, and an existing account is left alone). Returns what happened;
 * `needsLamports` when the fee payer cannot pay for it yet (nothing was sent), so that the caller
 * can create it as soon as the fee payer is funded.
 */
export async function ensureMerchantTokenAccount (options: { rpc: SolanaRpc, feePayer: KeyPairSigner, payTo: Address, mint: Address, timeoutMs: number }):
Promise<'exists' | 'created' | { problem: string, account?: Address, needsLamports?: bigint }> {
  const { rpc, feePayer, payTo, mint } = options
  const mintAccount = (await rpc.getAccountInfo(mint, { encoding: 'base64' }).send()).value
  if (mintAccount === null) return { problem: `the payment mint ${mint} does not exist on this cluster` }
  const tokenProgram = mintAccount.owner
  if (tokenProgram !== TOKEN_PROGRAM && tokenProgram !== TOKEN_2022_PROGRAM) return { problem: `${mint} is not a token mint` }
  const [ata] = await findAssociatedTokenPda({ owner: payTo, mint, tokenProgram })
  if ((await rpc.getAccountInfo(ata, { encoding: 'base64' }).send()).value !== null) return 'exists'
  const [rent, { value: lamports }] = await Promise.all([
    rpc.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_BYTES).send(),
    rpc.getBalance(feePayer.address).send()
  ])
  const needsLamports = rent + CREATE_FEE_LAMPORTS
  if (lamports < needsLamports) {
    return { problem: `the fee payer ${feePayer.address} holds ${lamports} lamports; creating ${ata} needs about ${needsLamports}`, account: ata, needsLamports }
  }

  const { value: blockhash } = await rpc.getLatestBlockhash().send()
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    m => setTransactionMessageFeePayerSigner(feePayer, m),
    m => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    m => appendTransactionMessageInstructions([getCreateAssociatedTokenIdempotentInstruction({ payer: feePayer, ata, owner: payTo, mint, tokenProgram })], m)
  )
  const signed = await signTransactionMessageWithSigners(message)
  try {
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send()
  } catch (error) {
    return { problem: `creating ${ata} was refused: ${(error as Error).message.slice(0, 200)}` }
  }
  const status = await awaitConfirmation(rpc, getSignatureFromTransaction(signed), 'confirmed', options.timeoutMs)
  if (status.state === 'landed') return 'created'
  return { problem: status.state === 'failed' ? `creating ${ata} failed on chain: ${status.error}` : `creating ${ata} was not confirmed in time` }
}
