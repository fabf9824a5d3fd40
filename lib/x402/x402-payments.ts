import type { Address, KeyPairSigner } from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import type { PaymentClaims } from '../../db/contracts/payment-claims.js'
import type { RedeliveryOf } from '../contract/redelivery.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import type { PaidServiceName } from '../payment/catalog.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import type { KeyObject } from 'node:crypto'
import { createX402Library } from './library.js'
import type { X402Network } from './networks.js'
import { paymentIdentifierExtensions } from './payment-identifier.js'
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type PaymentTerms } from './transaction-rules.js'
import { createTransferFeeReader } from './transfer-fee.js'
import type { PayerFailureBudget } from './payer-failures.js'
import { createX402Settler } from './x402-settle.js'
import { createX402Verifier } from './x402-verify.js'

export type { X402Claim, X402ClaimFlow, X402Request } from './x402-claim.js'

export interface X402PaymentsOptions {
  rpc: SolanaRpc
  claims: PaymentClaims
  feePayer: KeyPairSigner
  /** The fee payer's seed as Node's key object (see loadKeypairWithNodeKey). */
  feePayerNodeKey: KeyObject
  network: X402Network
  payTo: Address
  mint: Address
  commitment: 'confirmed' | 'finalized'
  /** How long the claim of a payment in service is held (handler + settlement); renewed while it works. */
  leaseMs: number
  /** How long settle waits for confirmation before answering "pending". */
  settlementTimeoutMs: number
  /** maxTimeoutSeconds advertised in the requirements. */
  maxTimeoutSeconds: number
  /** The most priority fee the fee payer pays for one payment (X402_MAX_PRIORITY_FEE_LAMPORTS). */
  maxPriorityFeeLamports: bigint
  /** Failed settlements per paying wallet (X402_PAYER_FAILURE_LIMIT). */
  payerFailures: PayerFailureBudget
  /** Resolves once the RPC is known to serve the configured cluster; throws otherwise. */
  ensureNetwork?: () => Promise<void>
  /** While payTo's token account does not exist yet: why, and what it waits for (a simulation then fails through no fault of the buyer's). */
  payToAccountMissing?: () => string | undefined
  /** A spent payment's kept answer, when this request may have it again. */
  redeliveryOf: RedeliveryOf
  /** The products sold: their prices and descriptions. */
  catalogue: Catalogue
}

/**
 * The standard x402 flow, Fastify-free: requirements (built by the library), verification and the
 * claim (x402-verify.ts: every check of the library's exact facilitator and our stricter rules, in
 * our own code), and settlement as the merchant's own facilitator (x402-settle.ts: the state
 * machine kept in the claim store). HTTP (v1, v2), MCP and A2A drive it through the delivery core.
 */
export async function createX402Payments (options: X402PaymentsOptions) {
  const { feePayer, payTo, mint } = options
  // The library builds the requirements and matches payloads; verification is ours.
  const library = await createX402Library({ rpc: options.rpc, feePayer, network: options.network })
  const [[tokenAta], [token2022Ata]] = await Promise.all([
    findAssociatedTokenPda({ owner: payTo, mint, tokenProgram: TOKEN_PROGRAM as Address }),
    findAssociatedTokenPda({ owner: payTo, mint, tokenProgram: TOKEN_2022_PROGRAM as Address })
  ])

  const requirementsV2 = new Map<PaidServiceName, PaymentRequirements>()
  for (const product of options.catalogue.products) {
    requirementsV2.set(product.name, await library.requirement(product.price, mint, payTo, options.maxTimeoutSeconds))
  }
  const requirementOf = (service: PaidServiceName) => requirementsV2.get(service) as PaymentRequirements

  function termsOf (service: PaidServiceName, x402Version: 1 | 2): PaymentTerms {
    return { feePayer: feePayer.address, mint, amount: options.catalogue.product(service).price, destinations: { token: tokenAta, token2022: token2022Ata }, maxPriorityFeeLamports: options.maxPriorityFeeLamports, x402Version }
  }

  const verifyAndClaim = createX402Verifier({
    ...options,
    termsOf,
    requirementOf,
    matches: (requirement, raw) => library.matches(requirement, raw),
    transferFee: createTransferFeeReader(options.rpc, mint)
  })
  const settle = createX402Settler(options)

  function paymentRequired (service: PaidServiceName, resourceUrl: string, error?: string): PaymentRequired {
    return {
      x402Version: 2,
      ...(error === undefined ? {} : { error }),
      resource: { url: resourceUrl, description: options.catalogue.product(service).description, mimeType: 'application/json' },
      accepts: [requirementOf(service)],
      extensions: paymentIdentifierExtensions()
    }
  }

  return { paymentRequired, verifyAndClaim, settle, feePayer: feePayer.address as string }
}

export type X402Payments = Awaited<ReturnType<typeof createX402Payments>>
