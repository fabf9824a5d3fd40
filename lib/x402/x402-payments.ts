import type { Address, KeyPairSigner } from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import type { PaidServiceName } from '../payment/catalog.js'
import type { ReceiptSigner } from '../receipts/jws-signer.js'
import type { RefundExtension } from '../refunds/refund-extension.js'
import { createX402Library } from './library.js'
import { paymentIdentifierExtensions } from './payment-identifier.js'
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type PaymentTerms } from './transaction-rules.js'
import { createTransferFeeReader } from './transfer-fee.js'
import { createX402Settler } from './x402-settle.js'
import { createX402Verifier, type X402MethodSettings } from './x402-verify.js'

export type { X402Claim, X402ClaimFlow, X402Request } from './x402-claim.js'

export interface X402PaymentsOptions extends X402MethodSettings {
  feePayer: KeyPairSigner
  payTo: Address
  mint: Address
  /** maxTimeoutSeconds advertised in the requirements. */
  maxTimeoutSeconds: number
  /** The most priority fee the fee payer pays for one payment (X402_MAX_PRIORITY_FEE_LAMPORTS). */
  maxPriorityFeeLamports: bigint
  /** Signs the 402's offers and the settlement's receipt (offer-receipt extension; lib/receipts/). */
  receipts?: { signer: ReceiptSigner, resourceUrl: (resource: string) => string }
  /** extensions.refund (x402's refund extension proposal) when refunds are on (REFUNDS): on every door's 402. */
  refund?: RefundExtension
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

  const { verifyAndClaim, verifyAndClaimTransaction } = createX402Verifier({
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
      extensions: { ...paymentIdentifierExtensions(), ...options.receipts?.signer.offerExtension(resourceUrl, [requirementOf(service)]), ...options.refund }
    }
  }

  return { paymentRequired, verifyAndClaim, verifyAndClaimTransaction, settle, feePayer: feePayer.address as string }
}

export type X402Payments = Awaited<ReturnType<typeof createX402Payments>>
