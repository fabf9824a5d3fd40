import type { Address } from '@solana/kit'
import { loggableError } from '../errors/loggable-error.js'
import type { ensureMerchantTokenAccount } from './fee-payer.js'

/** While the account waits for the fee payer's first SOL: one getBalance a second, so that a purchase right after the airdrop finds it. */
const FUNDING_POLL_MS = 1_000
/** After a failed check or creation (an RPC that did not answer): 2 s, doubling up to 30 s. */
const RETRY_MS = { first: 2_000, most: 30_000 }

export interface TokenAccountKeeper {
  /** Why payTo's token account is missing, while it is: a payment refused meanwhile says what it waits for. */
  missing: () => string | undefined
  stop: () => void
}

/**
 * Sees that payTo's token account exists (official x402 clients never create it): created at start
 * when the fee payer can pay for it, else as soon as its balance can (the README's local quick
 * start funds the fee payer after the merchant started), retried after a failure. Never holds up
 * the start.
 */
export function keepMerchantTokenAccount (options: {
  ensure: () => ReturnType<typeof ensureMerchantTokenAccount>
  /** The fee payer's balance, read again: the fee payer monitor's. */
  balance: () => Promise<bigint | undefined>
  feePayer: Address
  log: { info: (o: object, m: string) => void, warn: (o: object, m: string) => void }
}): TokenAccountKeeper {
  const { log, feePayer } = options
  let timer: NodeJS.Timeout | undefined
  let missing: string | undefined
  let stopped = false
  let failures = 0
  const later = (run: () => void, ms: number) => { if (!stopped) timer = setTimeout(run, ms).unref() }

  const waitForFunding = (needs: bigint) => {
    options.balance().then(lamports => {
      if ((lamports ?? 0n) >= needs) ensure()
      else later(() => waitForFunding(needs), FUNDING_POLL_MS)
    }, () => later(() => waitForFunding(needs), FUNDING_POLL_MS))
  }

  const ensure = () => {
    if (stopped) return
    options.ensure().then(outcome => {
      if (outcome === 'created') log.info({ feePayer }, 'created the merchant token account x402 payments go to')
      if (typeof outcome !== 'object') {
        missing = undefined
        return
      }
      if (outcome.needsLamports === undefined) throw new Error(outcome.problem)
      failures = 0
      const waiting = `the merchant's token account ${outcome.account} does not exist yet: it is created as soon as the fee payer ${feePayer} holds ${outcome.needsLamports} lamports; retry once it is funded`
      if (missing !== waiting) log.warn({ feePayer, needsLamports: outcome.needsLamports.toString() }, `${outcome.problem}: it is created as soon as the fee payer is funded; official x402 clients cannot pay until then`)
      missing = waiting
      later(() => waitForFunding(outcome.needsLamports as bigint), FUNDING_POLL_MS)
    }).catch((error: unknown) => {
      const retryInMs = Math.min(RETRY_MS.first * 2 ** failures++, RETRY_MS.most)
      missing ??= 'the merchant\'s token account for this payment may not exist yet: it is being checked again; retry in a minute'
      log.warn({ error: loggableError(error), retryInMs }, 'the merchant token account for x402 payments could not be checked or created; official x402 clients cannot pay until it exists')
      later(ensure, retryInMs)
    })
  }

  ensure()
  return {
    missing: () => missing,
    stop: () => {
      stopped = true
      clearTimeout(timer)
    }
  }
}
