import { Challenge } from 'mppx'
import { charge } from '@solana/mpp'
import type { Catalogue } from '../catalogue/catalogue.js'
import type { PaidServiceName } from '../payment/catalog.js'
import { chargeRequest, type ChargeMode, type ChargeTerms } from './charge-terms.js'

/** How long a challenge may be paid: long enough to sign, send and confirm, short enough that a price change reaches buyers soon. */
export const CHALLENGE_LIFETIME_MS = 5 * 60_000
/** Kept challenges are made again after a minute (or when the blockhash changes), so what they offer never runs short of time. */
const REMADE_AFTER_MS = 60_000
const HEADERS_KEPT = 1024

/** Pull first: a client that pays no fee (the default) takes the first challenge; a push client orders the one it can pay first. */
const MODES: readonly ChargeMode[] = ['pull', 'push']

export interface ChargeChallengeOptions {
  terms: ChargeTerms
  catalogue: Catalogue
  /** The HMAC key binding each challenge id to its contents (MPP_SECRET_KEY, or the store's). */
  secretKey: string
  recentBlockhash: () => string | undefined
  now?: () => number
}

interface Kept { challenges: Challenge.Challenge[], header: string, madeAt: number, blockhash: string | undefined }

/**
 * The `WWW-Authenticate: Payment` challenges of a paid resource: MPP's Solana charge, once in pull
 * mode (fee payer, its key, a recent blockhash) and once in push mode, each bound by HMAC
 * (mppx's Challenge.from with the secret key) to its request, its expiry and, in `opaque`, the
 * resource URL it was offered for. A resource's challenges are kept and made again after a minute,
 * so two 402s of that minute offer the same ones on every door.
 */
export function createChargeChallenges (options: ChargeChallengeOptions) {
  const now = options.now ?? Date.now
  const kept = new Map<string, Kept>()

  /** One challenge (mppx's object) of `service` at `resourceUrl`. */
  function challenge (service: PaidServiceName, resourceUrl: string, mode: ChargeMode, blockhash: string | undefined, at: number) {
    const product = options.catalogue.product(service)
    return Challenge.from({
      realm: new URL(resourceUrl).host,
      method: charge.name,
      intent: charge.intent,
      request: chargeRequest(options.terms, product.price, mode, blockhash),
      expires: new Date(at + CHALLENGE_LIFETIME_MS).toISOString(),
      meta: { resource: resourceUrl },
      secretKey: options.secretKey
    })
  }

  function current (service: PaidServiceName, resourceUrl: string): Kept {
    const key = `${service} ${resourceUrl}`
    const blockhash = options.recentBlockhash()
    const at = now()
    const known = kept.get(key)
    if (known !== undefined && at - known.madeAt < REMADE_AFTER_MS && known.blockhash === blockhash) return known
    const challenges = MODES.map(mode => challenge(service, resourceUrl, mode, blockhash, at))
    const made = { challenges, header: challenges.map(made => Challenge.serialize(made)).join(', '), madeAt: at, blockhash }
    if (kept.size >= HEADERS_KEPT && known === undefined) kept.delete(kept.keys().next().value as string)
    kept.set(key, made)
    return made
  }

  return {
    /** The WWW-Authenticate value offering `service` at `resourceUrl` (both challenges, comma-separated as RFC 9110 lists them). */
    header: (service: PaidServiceName, resourceUrl: string): string => current(service, resourceUrl).header,
    /** The challenges as objects (the MCP door carries them in JSON). */
    challenges: (service: PaidServiceName, resourceUrl: string): readonly Challenge.Challenge[] => current(service, resourceUrl).challenges
  }
}

export type ChargeChallenges = ReturnType<typeof createChargeChallenges>
