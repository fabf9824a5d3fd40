import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { createChargeChallenges, type ChargeChallenges } from '../../lib/mpp/charge-challenges.js'
import { mppNetwork, type ChargeTerms } from '../../lib/mpp/charge-terms.js'
import { createMppPayments, type MppPayments } from '../../lib/mpp/mpp-payments.js'
import { createRecentBlockhash } from '../../lib/mpp/recent-blockhash.js'
import { PAYMENT_TOKEN_DECIMALS } from '../../lib/payment/catalog.js'
import type { PaymentVerifier } from '../../lib/payment/payment-verifier.js'
import type { createRecipientAccount } from '../../lib/payment/recipient-account.js'

/** The name the MPP challenge key is kept under in the store. */
const SECRET_NAME = 'mpp-challenge-hmac'

export interface MppCharge {
  terms: ChargeTerms
  challenges: ChargeChallenges
  payments: MppPayments
}

/**
 * MPP's Solana charge for the payment plugin: its terms (the advertised network, the payment
 * mint, payTo, the x402 fee payer), the HMAC key (MPP_SECRET_KEY, else the one kept in the store,
 * made by whichever instance started first), the challenges and the method over the proof
 * verifier and x402.
 */
export async function createMppCharge (fastify: FastifyInstance, proofs: PaymentVerifier, recipient: ReturnType<typeof createRecipientAccount>): Promise<MppCharge> {
  const { config, store, solana, x402 } = fastify
  const secretKey = config.MPP_SECRET_KEY ?? await store.secrets.getOrKeep(SECRET_NAME, randomBytes(32).toString('base64url'))
  const terms: ChargeTerms = {
    mint: config.paymentMint,
    decimals: PAYMENT_TOKEN_DECIMALS,
    payTo: config.paymentAddress,
    network: mppNetwork(config.x402Network),
    feePayer: x402.feePayer.address,
    tokenProgram: () => recipient.tokenProgram()
  }
  const recentBlockhash = createRecentBlockhash(solana.rpc)
  return {
    terms,
    challenges: createChargeChallenges({ terms, catalogue: fastify.catalogue, secretKey, recentBlockhash: () => recentBlockhash.get() }),
    payments: createMppPayments({ x402, proofs, catalogue: fastify.catalogue, terms, secretKey })
  }
}
